enum _PlaceholderReveilleCLI {}
