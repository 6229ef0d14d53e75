// swift-tools-version:6.1
import PackageDescription

// The daemon stays resident for months: its release build is linked by the toolchain's lld so that
// the functions it runs sit side by side (link/reveilled.order, written by scripts/order_file.py),
// with relative relocations packed (DT_RELR, glibc 2.36) and no symbols exported for plugins it
// never loads. Together: some 8 MB less resident memory (BENCHMARKS.md). Debug builds link as usual.
let daemonLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld",
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/link/reveilled.order",
            "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker", "--no-export-dynamic", "-Xlinker", "--icf=all",
        ],
        .when(platforms: [.linux], configuration: .release)
    )
]

// The other programs' release builds the same way, without the order file: packed relocations
// and no exported symbols take about 1.5 MB off each (BENCHMARKS.md, "Smaller programs").
let programLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic", "-Xlinker", "--icf=all"],
        .when(platforms: [.linux], configuration: .release)
    )
]

let package = Package(
    name: "reveille",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reveilled", targets: ["reveilled"]),
        .executable(name: "reveille-notify", targets: ["reveille-notify"]),
        .executable(name: "reveille", targets: ["reveille"]),
        .executable(name: "reveille-web", targets: ["reveille-web"]),
        .executable(name: "reveille-calendar", targets: ["reveille-calendar"]),
        .executable(name: "reveille-mqtt", targets: ["reveille-mqtt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The web front end only (reveille-web), never the daemon.
        // Without its default traits: FullFoundation would link the whole of Foundation and ICU's
        // data, ConfigurationSupport swift-configuration; the server needs neither.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Hummingbird's own dependencies, named for the server's `run()` and its request parts.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // C for what Swift cannot import directly: SO_PEERCRED needs _GNU_SOURCE.
        .target(name: "CReveilleShims"),
        // alsa-lib's variadic error callback, which Swift cannot implement.
        .target(name: "CALSAShims", linkerSettings: [.linkedLibrary("asound")]),
        // alsa-lib and libsndfile, as Debian ships them.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CICal", pkgConfig: "libical", providers: [.apt(["libical-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libmosquitto (Debian's libmosquitto-dev for its header), opened by the MQTT bridge only,
        // never linked: reveille-mqtt is a name of reveilled, whose daemon never talks to the network.
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // SHA-256 of executables: libgcrypt, already in the daemon's process through libsystemd.
        .systemLibrary(name: "CGcrypt", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
        // libespeak-ng's synchronous synthesis into a buffer, the library opened at the first sentence.
        .target(name: "CEspeak", linkerSettings: [.linkedLibrary("dl")]),
        // Pure logic: schedule, layers, time zones. No I/O, no clock reads.
        .target(name: "ReveilleCore"),
        // The second product: app time windows and daily limits, as pure rules and a pure machine
        // (the policy, its evaluator, `AppLimits`, what counts as an app), apart from the clock's core.
        .target(name: "ReveilleApps", dependencies: ["ReveilleCore"]),
        // System calls the one way: descriptors that close themselves, one error type naming the C
        // function and errno, a regular file opened without touching what it turns out to be.
        .target(name: "ReveilleSystem", dependencies: ["CReveilleShims"]),
        // Wire format shared by the CLI and the daemon.
        .target(name: "ReveilleProtocol", dependencies: ["ReveilleApps", "ReveilleCore", "ReveilleSystem"]),
        // SQLite state through its C API; only the daemon writes it.
        .target(name: "ReveilleStore", dependencies: ["ReveilleApps", "ReveilleCore", "ReveilleSystem", "CSQLite"]),
        // /etc/reveille/reveille.toml, read and checked.
        .target(
            name: "ReveilleConfig",
            dependencies: ["ReveilleApps", "ReveilleCore", "ReveilleInput", .product(name: "TOMLKit", package: "TOMLKit")]
        ),
        // Sound through alsa-lib on a thread of its own; files decoded by libsndfile; the voice by libespeak-ng.
        .target(
            name: "ReveilleAudio",
            dependencies: [
                "ReveilleCore", "ReveilleSystem", "CALSA", "CSndFile", "CALSAShims", "CEspeak",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The NFC reader through libnfc, on a thread of its own.
        .target(
            name: "ReveilleNFC",
            dependencies: [
                "ReveilleCore", "ReveilleSystem", "CNFC", "CReveilleShims",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Bedside buttons and keypads: evdev devices read on the daemon's event loop.
        .target(name: "ReveilleInput", dependencies: ["ReveilleCore", "ReveilleSystem", "CEvdev", "CReveilleShims"]),
        // iCalendar files through libical: holiday calendars.
        .target(name: "ReveilleCalendar", dependencies: ["ReveilleCore", "CICal"]),
        // Web calendars fetched with libcurl, by the CLI only: the daemon never touches the network.
        .target(name: "ReveilleFetch", dependencies: ["ReveilleCalendar", "ReveilleProtocol", "CCurl"]),
        // The app guard: fanotify permission events on a thread of its own; executables known by content.
        .target(
            name: "ReveilleLaunch",
            dependencies: ["ReveilleApps", 
                "ReveilleCore", "ReveilleSystem", "ReveilleConfig", "CReveilleShims", "CGcrypt",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Services wiring core + store + control socket.
        .target(
            name: "ReveilleDaemon",
            dependencies: ["ReveilleApps", 
                "ReveilleCore", "ReveilleSystem", "ReveilleProtocol", "ReveilleStore", "ReveilleConfig",
                "ReveilleAudio",
                "ReveilleNFC", "ReveilleInput", "ReveilleLaunch", "CReveilleShims", "CSystemd", "CTimeDate",
                "CNetworkState", "ReveilleWifi", "CGcrypt",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Raspberry Pi Imager's settings for the image (its cloud-init files), checked, and the files
        // a clock writes from them.
        .target(name: "ReveilleImager", dependencies: ["ReveilleCore", "CYAML"]),
        // The Wi-Fi's rules and wpa_supplicant's words (pure; the daemon holds the socket).
        .target(name: "ReveilleWifi", dependencies: ["ReveilleProtocol"]),
        // libyaml, as Debian ships it (Imager's files are YAML); C, with no Foundation behind it.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // The `reveille` command tree, as a library so tests can check its help text.
        .target(
            name: "ReveilleCLI",
            dependencies: ["ReveilleApps", "ReveilleImager",
                "ReveilleCore", "ReveilleProtocol", "ReveilleConfig", "CReveilleShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The daemon, and the page's server when called `reveille-web` (installed as a link to it).
        .executableTarget(
            name: "reveilled",
            dependencies: ["ReveilleDaemon", "ReveilleWeb", "ReveilleNotify", "ReveilleMQTT", "ReveilleCore"],
            linkerSettings: daemonLinking),
        // A child's desktop notifier: one more name of `reveilled` when installed; this target is
        // for development and tests, as `reveille-web`'s.
        .target(
            name: "ReveilleNotify", dependencies: ["ReveilleApps", "ReveilleProtocol", "ReveilleCore", "ReveilleLaunch", "CNotifyBus"]),
        .target(name: "CNotifyBus", dependencies: ["CSystemd"]),
        // systemd-networkd's state for the daemon (sd-bus: its manager's properties, never starting it).
        .target(name: "CNetworkState", dependencies: ["CSystemd"]),
        // The first boot's time zone, set through systemd-timedated (sd-bus).
        .target(name: "CTimeDate", dependencies: ["CSystemd"]),
        .executableTarget(name: "reveille-notify", dependencies: ["ReveilleNotify"]),
        .executableTarget(name: "reveille", dependencies: ["ReveilleCLI"], linkerSettings: programLinking),
        // libcurl and libical live here only: `reveille` starts fast, `reveilled` never parses or fetches.
        .executableTarget(
            name: "reveille-calendar",
            dependencies: [
                "ReveilleFetch", "ReveilleCalendar", "ReveilleConfig", "ReveilleProtocol", "CReveilleShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: programLinking),
        // The screen: a page served over HTTP by a process of its own, unprivileged, a client of the socket.
        .target(
            name: "ReveilleWeb",
            dependencies: [
                "ReveilleProtocol", "ReveilleConfig", "CWebShims",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page, compiled into the binary as bytes: no bundle to install or find at run time.
            resources: [
                .embedInCode("Resources/page.html"), .embedInCode("Resources/page.css"),
                .embedInCode("Resources/page.js"),
            ]
        ),
        // The smart home: a process of its own, unprivileged, a client of the socket and of the broker.
        .target(
            name: "ReveilleMQTT",
            dependencies: ["ReveilleApps", 
                "ReveilleProtocol", "ReveilleConfig", "ReveilleSystem", "CReveilleShims", "CMosquitto", "CGcrypt",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The bridge alone, for development and the tests; installed, it is `reveilled` by this name.
        .executableTarget(name: "reveille-mqtt", dependencies: ["ReveilleMQTT"]),
        // The web front end alone, for development and the tests; installed, it is `reveilled` by this name.
        .executableTarget(name: "reveille-web", dependencies: ["ReveilleWeb"]),
        // The Swift runtime's task hook, for NIO to run reveille-web's tasks (see its main.swift).
        .target(name: "CWebShims"),
        .executableTarget(
            name: "reveille-bench",
            dependencies: ["ReveilleCore", "ReveilleProtocol", "ReveilleCalendar", "ReveilleConfig", "ReveilleStore", "CSQLite"]),
        // Sound files for the tests: written and read back with libsndfile, analysed.
        .target(name: "CTestSupport", path: "Tests/CTestSupport", linkerSettings: [.linkedLibrary("systemd")]),
        .target(
            name: "ReveilleTestSupport", dependencies: ["CSndFile", "CTestSupport"], path: "Tests/ReveilleTestSupport"),
        // The PN532 emulator as a program, for the benchmarks and for trying the daemon by hand.
        // A test tool: it links the whole of Foundation by name, which the release build's programs
        // are kept from doing (Makefile, NO_FOUNDATION).
        .executableTarget(
            name: "pn532-emulator", dependencies: ["ReveilleTestSupport"], path: "Tests/pn532-emulator",
            linkerSettings: ["Foundation", "CoreFoundation", "FoundationInternationalization", "_FoundationICU"].map {
                .linkedLibrary($0, .when(configuration: .release))
            } + [.unsafeFlags(["-use-ld=lld"], .when(configuration: .release))]),  // lld: in any order
        .testTarget(name: "ReveilleNFCTests", dependencies: ["ReveilleNFC", "ReveilleTestSupport"]),
        .testTarget(name: "ReveilleCoreTests", dependencies: ["ReveilleApps", "ReveilleCore"]),
        .testTarget(name: "ReveilleInputTests", dependencies: ["ReveilleInput", "ReveilleSystem"]),
        .testTarget(name: "ReveilleCalendarTests", dependencies: ["ReveilleCalendar"]),
        .testTarget(
            name: "ReveilleLaunchTests",
            dependencies: ["ReveilleApps", "ReveilleLaunch", "ReveilleCore", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "ReveilleProtocolTests", dependencies: ["ReveilleProtocol"]),
        .testTarget(name: "ReveilleImagerTests", dependencies: ["ReveilleImager"]),
        .testTarget(name: "ReveilleWifiTests", dependencies: ["ReveilleWifi", "ReveilleProtocol"]),
        .testTarget(
            name: "ReveilleStoreTests", dependencies: ["ReveilleApps", "ReveilleStore", "CSQLite"], exclude: ["Fixtures"]),
        .testTarget(name: "ReveilleConfigTests", dependencies: ["ReveilleApps", "ReveilleConfig", "ReveilleProtocol", "ReveilleTestSupport"]),
        .testTarget(name: "ReveilleMQTTTests", dependencies: ["ReveilleApps", "ReveilleMQTT", "ReveilleProtocol", "ReveilleConfig", "ReveilleSystem"]),
        .testTarget(name: "ReveilleWebTests", dependencies: ["ReveilleWeb", "ReveilleProtocol"]),
        .testTarget(
            name: "ReveilleAudioTests",
            dependencies: [
                "ReveilleAudio", "ReveilleSystem", "ReveilleTestSupport", "CSndFile",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReveilleDaemonTests",
            dependencies: [
                "ReveilleDaemon", "ReveilleCLI", "ReveilleProtocol", "ReveilleSystem", "ReveilleTestSupport",
                "CReveilleShims", "ReveilleInput", "CTestSupport", "ReveilleWifi",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// A member is found only through a module the file imports itself: Foundation's extensions (which
// would link the whole of Foundation and ICU's data, see BENCHMARKS.md) cannot leak in through a
// dependency that imports it.
for target in package.targets where target.type != .system && !target.name.hasSuffix("Tests") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// Modules where no time is spent in a loop (commands, the page's server, the bridge, settings, the
// state, the devices' edges) are built for size: about 1.5 MB less in all (BENCHMARKS.md, "Smaller
// programs"). The schedule engine (ReveilleCore), the wire types (ReveilleProtocol) and the sound
// (ReveilleAudio) stay built for speed: `next --days 365` and the engine's figures are theirs.
let builtForSize: Set<String> = [
    "ReveilleCLI", "ReveilleWeb", "ReveilleMQTT", "ReveilleCalendar", "ReveilleFetch", "ReveilleConfig",
    "ReveilleNotify", "ReveilleDaemon", "ReveilleStore", "ReveilleInput", "ReveilleNFC", "ReveilleLaunch",
    "ReveilleSystem", "ReveilleWifi", "ReveilleImager",
]
for target in package.targets where builtForSize.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Osize"], .when(configuration: .release))]
}
