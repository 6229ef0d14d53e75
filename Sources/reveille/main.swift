import ReveilleCLI
import ReveilleCore
import ReveilleDaemon
import ReveilleWeb

// One program under three names, as busybox and systemd do: `reveilled` and `reveille-web` are
// links to `reveille`, which becomes what it is called. One copy of the Swift runtime, its
// standard library and the code the three share (README, "Installing on the clock").
// `reveille-calendar` stays a program of its own: libcurl and libical never load into the
// daemon or the command line.
switch PathName.last(CommandLine.arguments.first ?? "reveille") {
case "reveilled": Reveilled.start()
case "reveille-web": WebMain.start()
default: Reveille.start()
}
