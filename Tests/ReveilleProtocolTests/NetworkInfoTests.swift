import Foundation
import ReveilleProtocol
import Testing

/// The machine's network in words, from systemd-networkd's operational state, and on the wire.
@Suite struct NetworkInfoTests {
    @Test(arguments: [
        ("routable", true, "connected"),
        ("degraded", false, "no network: no address from the home network yet (its router has not answered)"),
        ("carrier", false, "no network: connected, with no address yet"),
        ("no-carrier", false, "no network: the Wi-Fi or the cable is not connected"),
        ("dormant", false, "no network: the Wi-Fi or the cable is not connected"),
        ("off", false, "no network: no network adapter is up"),
    ])
    func eachStateInWords(state: String, online: Bool, words: String) {
        #expect(NetworkInfo.from(operationalState: state) == NetworkInfo(online: online, state: state, words: words))
    }

    @Test func aStateThatSaysNothingIsNone() {
        #expect(NetworkInfo.from(operationalState: "missing") == nil)
        #expect(NetworkInfo.from(operationalState: "") == nil)
        #expect(NetworkInfo.from(operationalState: "something-new") == nil)
    }

    @Test func theEventOnTheWire() throws {
        for event in [WatchEvent.network(.from(operationalState: "no-carrier")), .network(nil)] {
            let line = try JSONEncoder().encode(event)
            #expect(try JSONDecoder().decode(WatchEvent.self, from: line) == event)
        }
        #expect(
            String(decoding: try JSONEncoder().encode(WatchEvent.network(nil)), as: UTF8.self) == #"{"network":null}"#)
    }
}
