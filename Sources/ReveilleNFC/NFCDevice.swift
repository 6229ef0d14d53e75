import CNFC
import ReveilleCore
import Glibc

/// A failed libnfc call: which function, on which device, and libnfc's words.
public struct NFCError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let device: String
    public let message: String
    /// True when the device is not there at all (no such serial port, nothing found).
    public let absent: Bool

    public var description: String { "\(device): \(message) (\(function))" }
}

/// An open NFC reader (owns the libnfc context and `nfc_device`, closed in `deinit`), set up as
/// an initiator that polls for ISO 14443-A tags at 106 kbps without blocking for long.
final class NFCDevice {
    let name: String
    private let context: OpaquePointer
    private let device: OpaquePointer

    /// nfc_init, nfc_open on `connstring` (nil: libnfc's autodetection), nfc_initiator_init, and
    /// NP_INFINITE_SELECT off so that a poll with no tag returns at once.
    init(connstring: String?) throws(NFCError) {
        var context: OpaquePointer?
        nfc_init(&context)
        guard let context else {
            throw NFCError(
                function: "nfc_init", device: connstring ?? "auto", message: "libnfc could not start", absent: false)
        }
        let opened: OpaquePointer? = connstring.map { nfc_open(context, $0) } ?? nfc_open(context, nil)
        guard let opened else {
            nfc_exit(context)
            let label = connstring ?? "auto"
            if let path = connstring.flatMap(ReaderHealth.devicePath), access(path, F_OK) != 0 {
                throw NFCError(function: "nfc_open", device: label, message: "no device at \(path)", absent: true)
            }
            throw NFCError(
                function: "nfc_open", device: label,
                message: connstring == nil ? "no reader found" : "the reader does not answer", absent: connstring == nil
            )
        }
        self.context = context
        self.device = opened
        self.name = connstring ?? String(cString: nfc_device_get_connstring(opened))
        guard nfc_initiator_init(opened) >= 0 else { throw failure("nfc_initiator_init") }
        guard nfc_device_set_property_bool(opened, NP_INFINITE_SELECT, false) >= 0 else {
            throw failure("nfc_device_set_property_bool")
        }
    }

    deinit {
        nfc_close(device)
        nfc_exit(context)
    }

    /// nfc_initiator_select_passive_target for ISO 14443-A at 106 kbps: the UID of the tag in the
    /// field, or nil. The target is deselected again so that the next poll sees it afresh.
    func poll() throws(NFCError) -> [UInt8]? {
        var target = nfc_target()
        let modulation = nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)
        let found = nfc_initiator_select_passive_target(device, modulation, nil, 0, &target)
        if found < 0 { throw failure("nfc_initiator_select_passive_target") }
        guard found > 0 else { return nil }
        nfc_initiator_deselect_target(device)
        let info = target.nti.nai
        let length = min(Int(info.szUidLen), 10)
        let uid = withUnsafeBytes(of: info.abtUid) { Array($0.prefix(length)) }
        return uid.isEmpty ? nil : uid
    }

    /// nfc_idle: the RF field off and the chip asleep while nothing needs a tag.
    func idle() { nfc_idle(device) }

    private func failure(_ function: String) -> NFCError {
        NFCError(function: function, device: name, message: String(cString: nfc_strerror(device)), absent: false)
    }
}
