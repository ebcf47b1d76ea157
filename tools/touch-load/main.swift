print("touch-load: not yet")
