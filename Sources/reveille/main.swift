import ReveilleCLI

Reveille.start()
