import CCurl
import FoundationEssentials
import Glibc
import ReveilleCore

/// One conditional GET with libcurl: http and https only (redirects too), a total time limit, a
/// size limit enforced while the body arrives, and the validators to send and to keep.
public enum HTTPFetch {
    public struct Limits: Sendable {
        public var timeoutSeconds: Int
        public var maxBytes: Int

        public init(timeoutSeconds: Int = 30, maxBytes: Int = 4 << 20) {
            self.timeoutSeconds = timeoutSeconds
            self.maxBytes = maxBytes
        }
    }

    public enum Outcome: Sendable, Equatable {
        case fetched(body: Data, etag: String?, lastModified: String?)
        case notModified
        case failed(String)
    }

    private static let initialized: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()

    /// What arrives, gathered by libcurl's callbacks.
    private final class Transfer {
        var body = Data()
        var headers: [String: String] = [:]
        let maxBytes: Int
        var tooLarge = false

        init(maxBytes: Int) { self.maxBytes = maxBytes }
    }

    public static func get(_ url: String, etag: String?, lastModified: String?, limits: Limits) -> Outcome {
        guard initialized, let curl = curl_easy_init() else { return .failed("libcurl could not start") }
        defer { curl_easy_cleanup(curl) }
        let transfer = Transfer(maxBytes: limits.maxBytes)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>? = nil
        if let etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified { headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)") }
        defer { curl_slist_free_all(headers) }

        _ = rv_curl_set_string(curl, CURLOPT_URL, url)
        _ = rv_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = rv_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = rv_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        _ = rv_curl_set_long(curl, CURLOPT_MAXREDIRS, 5)
        _ = rv_curl_set_long(curl, CURLOPT_TIMEOUT, limits.timeoutSeconds)
        _ = rv_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, min(limits.timeoutSeconds, 15))
        _ = rv_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = rv_curl_set_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes))
        _ = rv_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "")  // whatever libcurl can decode
        _ = rv_curl_set_string(curl, CURLOPT_USERAGENT, "reveille calendar refresh")
        _ = rv_curl_set_pointer(curl, CURLOPT_HTTPHEADER, headers)
        _ = rv_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
        _ = rv_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
        _ = rv_curl_set_write(curl) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            // A body without Content-Length is stopped here, at the limit.
            guard transfer.body.count + length <= transfer.maxBytes else {
                transfer.tooLarge = true
                return 0
            }
            if let data {
                transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
            }
            return length
        }
        _ = rv_curl_set_header(curl) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") { transfer.headers = [:] }  // a redirect's headers are not the body's
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmed()
                transfer.headers[name] = value
            }
            return length
        }

        let code = curl_easy_perform(curl)
        let mebibytes = Double(limits.maxBytes) / 1_048_576
        let megabytes = (mebibytes == mebibytes.rounded() ? String(Int(mebibytes)) : String(mebibytes)) + " MiB"
        switch code {
        case CURLE_OK: break
        case CURLE_FILESIZE_EXCEEDED: return .failed("larger than \(megabytes); not taken")
        case CURLE_WRITE_ERROR where transfer.tooLarge: return .failed("larger than \(megabytes); not taken")
        case CURLE_OPERATION_TIMEDOUT: return .failed("no answer within \(limits.timeoutSeconds) s")
        default: return .failed(String(cString: curl_easy_strerror(code)))
        }
        let status = rv_curl_response_code(curl)
        switch status {
        case 200:
            return .fetched(
                body: transfer.body, etag: transfer.headers["etag"], lastModified: transfer.headers["last-modified"])
        case 304: return .notModified
        default: return .failed("HTTP \(status)\(reason(status))")
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 401, 403: " (not allowed: is the address private?)"
        case 404, 410: " (not found: has the address changed?)"
        case 500...599: " (the server failed; tried again later)"
        default: ""
        }
    }
}
