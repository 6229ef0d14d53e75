import ReveilleMQTT

BridgeMain.start()
