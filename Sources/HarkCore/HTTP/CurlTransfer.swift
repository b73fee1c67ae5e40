import CCurl
import FoundationEssentials
import Glibc

/// One HTTP exchange driven by libcurl's multi interface on a thread of its own. Responses are
/// pushed into an HTTPBodyChannel as they arrive; cancelling wakes curl at once (no waiting
/// for the next byte), and the first-byte and idle timeouts are enforced here.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let channel: HTTPBodyChannel
    private let userAgent: String
    private let wakeLock = Lock()
    private var multi: UnsafeMutableRawPointer?
    private var easy: UnsafeMutableRawPointer?
    private var collectedHeaders: [String: String] = [:]
    private var headEmitted = false
    private var sawFirstByte = false
    private var lastActivity: UInt64 = 0
    private var consumerGone = false
    /// The proxy refused the request (407); ends the transfer with that error.
    private var proxyRefusal: HarkError?

    init(request: HTTPRequest, channel: HTTPBodyChannel, userAgent: String) {
        self.request = request
        self.channel = channel
        self.userAgent = userAgent
    }

    static func loadLibrary() throws {
        if let problem = hark_curl_load() {
            throw HarkError.unavailable(String(cString: problem), hint: "hark needs it for every network session")
        }
    }

    func start() {
        Threads.start(name: "hark-http") { [self] in self.run() }
    }

    private func run() {
        let error = perform()
        channel.finish(throwing: error)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func perform() -> Error? {
        guard let easy = hark_curl_easy_init(), let multi = hark_curl_multi_init() else {
            return HarkError.io("libcurl could not start a transfer")
        }
        self.easy = easy
        wakeLock.withLock { self.multi = multi }
        channel.onCancel = { [weak self] in self?.wake() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        var mime: OpaquePointer?
        defer {
            hark_curl_multi_remove_handle(multi, easy)
            wakeLock.withLock { self.multi = nil }
            hark_curl_multi_cleanup(multi)
            hark_curl_easy_cleanup(easy)
            if let headerList { hark_curl_slist_free_all(headerList) }
            if let mime { hark_curl_mime_free(mime) }
        }

        let unmanaged = Unmanaged.passUnretained(self).toOpaque()
        do {
            try Self.setConnectionOptions(easy, request: request, userAgent: userAgent)
        } catch {
            return error
        }
        hark_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")  // every encoding curl can decode
        hark_curl_setopt_long(easy, CURLOPT_BUFFERSIZE, 128 * 1024)
        if request.followRedirects {
            hark_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
            hark_curl_setopt_long(easy, CURLOPT_MAXREDIRS, 5)
        }
        hark_curl_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, curlWrite)
        hark_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, unmanaged)
        hark_curl_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, curlHeader)
        hark_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, unmanaged)

        // "Expect:" stops curl from waiting for 100-continue before large bodies.
        for header in request.headers + [("Expect", "")] {
            headerList = hark_curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        hark_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))

        do {
            mime = try setBody(easy)
        } catch {
            return error
        }
        if request.method != "GET" && request.method != "POST" {
            hark_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        } else if request.method == "GET", case .none = request.body {
            hark_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        }
        hark_curl_multi_add_handle(multi, easy)
        return transfer(multi)
    }

    /// The request's body, if any: bytes copied to curl, or a multipart form (its handle, which
    /// the caller frees once the transfer is over).
    private func setBody(_ easy: UnsafeMutableRawPointer) throws -> OpaquePointer? {
        switch request.body {
        case .none:
            if request.method == "POST" {
                hark_curl_setopt_long(easy, CURLOPT_POST, 1)
                hark_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                hark_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            }
        case .bytes(let bytes):
            hark_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            _ = bytes.withUnsafeBufferPointer { buffer in
                hark_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS,
                                         UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
            }
        case .multipart(let parts):
            let mime = hark_curl_mime_init(easy)
            for part in parts {
                let handle = hark_curl_mime_addpart(mime)
                hark_curl_mime_name(handle, part.name)
                switch part.content {
                case .text(let text):
                    hark_curl_mime_data(handle, text, text.utf8.count)
                case .bytes(let bytes):
                    bytes.withUnsafeBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                            _ = hark_curl_mime_data(handle, $0, bytes.count)
                        }
                    }
                case .file(let path):
                    if hark_curl_mime_filedata(handle, path) != CURLE_OK {
                        if let mime { hark_curl_mime_free(mime) }
                        throw HarkError.io("cannot read \(path)")
                    }
                }
                if let filename = part.filename { hark_curl_mime_filename(handle, filename) }
                if let type = part.contentType { hark_curl_mime_type(handle, type) }
            }
            hark_curl_setopt_pointer(easy, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime))
            return mime
        }
        return nil
    }

    /// Runs the transfer to its end, enforcing the first-byte and idle timeouts; nil once it
    /// completed.
    private func transfer(_ multi: UnsafeMutableRawPointer) -> Error? {
        let started = Self.monotonicNanoseconds()
        lastActivity = started
        var running: Int32 = 1
        while true {
            hark_curl_multi_perform(multi, &running)
            if running == 0 || consumerGone || channel.cancelled { break }
            let now = Self.monotonicNanoseconds()
            if !sawFirstByte, Double(now - started) / 1e9 > request.timeouts.firstByte {
                return HarkError.timeout(host: request.displayHost, phase: "waiting for the first byte",
                                         seconds: request.timeouts.firstByte)
            }
            if channel.quietExpected { lastActivity = now }
            if sawFirstByte, now > lastActivity, Double(now - lastActivity) / 1e9 > request.timeouts.idle {
                return HarkError.timeout(host: request.displayHost, phase: "with no data", seconds: request.timeouts.idle)
            }
            hark_curl_multi_poll(multi, 250)
        }
        if let proxyRefusal { return proxyRefusal }
        if consumerGone || channel.cancelled { return CancellationError() }
        let result = hark_curl_multi_done_result(multi)
        if result == Int32(CURLE_OK.rawValue) {
            if !headEmitted { emitHead() }
            return proxyRefusal
        }
        return describe(CURLcode(rawValue: UInt32(result)))
    }

    private func wake() {
        wakeLock.withLock {
            if let multi { hark_curl_multi_wakeup(multi) }
        }
    }

    private func emitHead() {
        guard !headEmitted, let easy else { return }
        headEmitted = true
        var status = 0
        hark_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        // A plain http:// request through a proxy gets the proxy's 407 as its answer.
        if status == 407, let proxy = request.proxy {
            proxyRefusal = ProxyFailure.credentials(proxy: proxy, request: request)
            consumerGone = true
            return
        }
        if !channel.push(.head(HTTPResponseHead(status: status, headers: collectedHeaders))) { consumerGone = true }
    }

    fileprivate func received(body bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        sawFirstByte = true
        if !headEmitted { emitHead() }
        if consumerGone { return false }
        let accepted = channel.push(.body(Array(bytes)))
        lastActivity = Self.monotonicNanoseconds()
        if !accepted { consumerGone = true }
        return accepted
    }

    fileprivate func received(headerLine bytes: UnsafeBufferPointer<UInt8>) {
        sawFirstByte = true
        lastActivity = Self.monotonicNanoseconds()
        let line = String(decoding: bytes, as: UTF8.self).trimmed
        if line.hasPrefix("HTTP/") {
            collectedHeaders = [:]  // a new response (after 100 Continue or a redirect)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingSpaces
        if let existing = collectedHeaders[name], name != "set-cookie" {
            collectedHeaders[name] = existing + ", " + value
        } else if let existing = collectedHeaders[name] {
            collectedHeaders[name] = existing + "\n" + value
        } else {
            collectedHeaders[name] = value
        }
    }

    /// How any libcurl connection of hark's reaches its server: the URL, timeouts, the proxy
    /// ProxyRoute chose (set or cleared explicitly, so curl's own reading of the environment
    /// never disagrees with it) and TLS checks. Shared with WebSocket connections over TLS.
    static func setConnectionOptions(_ easy: UnsafeMutableRawPointer, request: HTTPRequest, userAgent: String) throws {
        hark_curl_setopt_string(easy, CURLOPT_URL, request.url)
        hark_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        hark_curl_setopt_string(easy, CURLOPT_USERAGENT, userAgent)
        hark_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.timeouts.connect * 1000))
        hark_curl_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        let proxy = request.proxy
        hark_curl_setopt_string(easy, CURLOPT_PROXY, proxy ?? "")
        if proxy != nil, let credentials = request.tls.proxyAuth,
           case .basic(let user, let password) = try AuthSpec(parsing: credentials.spec) {
            hark_curl_setopt_string(easy, CURLOPT_PROXYUSERNAME, user)
            hark_curl_setopt_string(easy, CURLOPT_PROXYPASSWORD, try password.resolve())
        }
        if request.tls.insecure {
            hark_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
            hark_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let bundle = request.tls.caFile { hark_curl_setopt_string(easy, CURLOPT_CAINFO, bundle) }
        // Checked by libcurl during the handshake, before a byte of the request is sent.
        if let pins = request.tls.pinnedKeys { hark_curl_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pins) }
    }

    private func describe(_ code: CURLcode) -> HarkError {
        var connectCode = 0
        if let easy { hark_curl_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode) }
        return Self.describe(code, request: request, sawFirstByte: sawFirstByte, connectCode: connectCode)
    }

    /// The error for a failed transfer. Through a proxy, what failed is usually the proxy: the
    /// connection to it, or its answer to CONNECT (`connectCode`), and the line says so rather
    /// than sending the user to look at the server.
    static func describe(_ code: CURLcode, request: HTTPRequest, sawFirstByte: Bool, connectCode: Int = 0) -> HarkError {
        let host = request.displayHost
        if let proxy = request.proxy, let error = ProxyFailure.describe(code, proxy: proxy, request: request, connectCode: connectCode) {
            return error
        }
        switch code {
        case CURLE_COULDNT_CONNECT: return .network(host: host, reason: NetworkReason.refused)
        case CURLE_COULDNT_RESOLVE_HOST: return .network(host: host, reason: "unknown host")
        case CURLE_COULDNT_RESOLVE_PROXY: return .network(host: host, reason: "unknown proxy host")
        case CURLE_OPERATION_TIMEDOUT:
            return sawFirstByte
                ? .timeout(host: host, phase: "with no data", seconds: request.timeouts.idle)
                : .timeout(host: host, phase: "while connecting", seconds: request.timeouts.connect)
        case CURLE_PEER_FAILED_VERIFICATION:
            if let bundle = request.tls.caFile {
                return .network(host: host, reason: "its TLS certificate is not signed by the CA in \(bundle) (or names another host)")
            }
            return .network(host: host, reason: "its TLS certificate is not trusted; set ca = PATH to your CA bundle "
                + "(insecure = on only for a server you control)")
        case CURLE_SSL_CACERT_BADFILE:
            return .network(host: host, reason: "cannot use the CA bundle \(request.tls.caFile ?? "of the system") (not PEM certificates?)")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .network(host: host, reason: "its TLS public key does not match the session's pin; "
                + "if the server's key changed on purpose, update pin")
        case CURLE_SSL_CONNECT_ERROR: return .network(host: host, reason: "the TLS handshake failed")
        case CURLE_GOT_NOTHING: return .network(host: host, reason: NetworkReason.closedWithoutAnswer)
        case CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_ERROR:
            return .network(host: host, reason: sawFirstByte ? NetworkReason.brokeMidReply : NetworkReason.reset)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .usage("the URL \(MessageLine.make(request.url, limit: 80)) is not a valid http(s) URL")
        case CURLE_BAD_CONTENT_ENCODING: return .protocolViolation("\(host) sent a body that does not decode (bad gzip)")
        case CURLE_WEIRD_SERVER_REPLY: return .protocolViolation("\(host) did not answer in HTTP")
        default:
            return .network(host: host, reason: String(cString: hark_curl_easy_strerror(code)))
        }
    }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                       _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    return transfer.received(body: bytes) ? length : 0
}

private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                        _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    transfer.received(headerLine: UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self),
                                                      count: length))
    return length
}
