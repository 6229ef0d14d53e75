import Foundation
import Glibc
import ReveilleConfig
import ReveilleSystem
import Synchronization
import Testing

@testable import ReveilleDaemon

/// A log line is stamped in the process's own zone, even while a zone is being loaded on another
/// thread (the loader lends `TZ` to glibc for a moment: one line was stamped 14 hours off).
@Suite(.serialized) struct LogStampTests {
    @Test func aStampTakenWhileAZoneIsLoadedKeepsTheProcesssZone() throws {
        let expected = ProcessZone.local(time(nil)).tm_gmtoff
        let loading = Atomic<Bool>(true)
        let loader = Thread {
            while loading.load(ordering: .relaxed) {
                _ = ZoneInfo.load(expected == 14 * 3600 ? "America/Adak" : "Pacific/Kiritimati", directory: "/usr/share/zoneinfo")
            }
        }
        loader.start()
        defer {
            loading.store(false, ordering: .relaxed)
            while !loader.isFinished { usleep(1000) }
        }
        var wrong: [String] = []
        let deadline = Date().addingTimeInterval(1.5)
        while Date() < deadline {
            var before = time(nil) + time_t(expected)
            var want = tm()
            gmtime_r(&before, &want)
            let stamp = FileLogHandler.stamp()
            // `YYYY-MM-DD HH:MM:SS.mmm`: the hour and minute, a minute's tick allowed.
            let clock = stamp.split(separator: " ")[1].split(separator: ":").compactMap { Int($0) }
            let minutes = (clock[0] * 60 + clock[1] - Int(want.tm_hour * 60 + want.tm_min) + 1440) % 1440
            if minutes > 1 { wrong.append(stamp) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) stamps in another zone, like \(wrong.first ?? "")")
    }
}
