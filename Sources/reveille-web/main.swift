import ReveilleWeb

WebMain.start()
