import ReveilleNotify

// For development and tests; installed, `reveille-notify` is a link to `reveilled`.
NotifyMain.start()
