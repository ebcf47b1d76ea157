import TouchProtocol

// Until the gesture engine lands, every source runs the pass-through.
func makeEngine(_ hello: Hello) -> any GestureProcessor { PassThroughProcessor() }
