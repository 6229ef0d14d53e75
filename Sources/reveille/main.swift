import ReveilleCLI

Reveille.main()
