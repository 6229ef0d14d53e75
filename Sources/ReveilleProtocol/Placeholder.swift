enum _PlaceholderReveilleProtocol {}
