import ReveilleDaemon

Reveilled.start()
