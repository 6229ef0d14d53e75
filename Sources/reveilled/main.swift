import ReveilleCore
import ReveilleDaemon
import ReveilleMQTT
import ReveilleNotify
import ReveilleWeb

// The services that stay up are one program, as busybox's and systemd's tools are:
// `reveille-web`, `reveille-mqtt` (and a child's `reveille-notify`) are links to `reveilled`, which
// becomes what it is called. The processes share its pages in memory (one copy of the Swift runtime
// and of the code they share), and each runs with its own user and rights; only `reveille-mqtt`
// opens libmosquitto. The short-lived commands, `reveille` and
// `reveille-calendar`, stay programs of their own: they start loading only what they use.
switch PathName.last(CommandLine.arguments.first ?? "reveilled") {
case "reveille-web": WebMain.start()
case "reveille-notify": NotifyMain.start()
case "reveille-mqtt": BridgeMain.start()
default: Reveilled.start()
}
