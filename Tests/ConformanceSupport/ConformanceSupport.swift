// Shared conformance-vector loading and matching: moved here from GestureEngineTests.
