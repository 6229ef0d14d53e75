enum _PlaceholderReveilleDaemon {}
