// The engine lands with the gesture engine issue.
