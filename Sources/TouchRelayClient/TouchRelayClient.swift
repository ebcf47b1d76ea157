// NIO WebSocket client for tests and touch-load: arrives with the harness.
