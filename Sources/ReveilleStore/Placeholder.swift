enum _PlaceholderReveilleStore {}
