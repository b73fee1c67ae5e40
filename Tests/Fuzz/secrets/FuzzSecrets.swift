import FoundationEssentials
import Glibc

/// Fuzz target: secret references holding control characters, through request building
/// (Config/Secret.swift, HTTP/AuthHeaderCache.swift, HTTP/HTTPRequest.swift). The first byte
/// chooses the auth form (`header:NAME:…`, `bearer:…`, `basic:USER:…`, or the whole spec as a
/// config line would have it) and where the secret lives (an environment variable, a literal,
/// a file, now and then a command); the rest is cut in two at a point it decides: the header
/// name (or user) and the secret's bytes. Properties, for any bytes:
/// - it fails exactly when the name is not a header token (or the user holds a line break), or
///   the value sent would hold CR, LF or NUL, or is missing; a file's or command's value is its
///   first line, so only a NUL or an empty first line fails there;
/// - a failure is one line naming the session, never holding the value;
/// - otherwise the head written on the wire has one line per header and no CR, LF or NUL
///   inside any line, and the secret's header carries exactly the value expected.

let session = "fuzzsession"
let scratch: String = {
    var template = Array("/tmp/hark-fuzz-secrets-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return made.map { String(cString: $0) } ?? "/tmp"
}()
let secretFile = scratch + "/secret"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecrets(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard input.count >= 1 else { return 0 }
    // Each run's values are its own: remembered across millions of runs, masking would slow.
    SecretValues.forgetAll()
    let choice = input.buffer[0]
    let rest = input.rest
    let cut = rest.count == 0 ? 0 : rest.splitPoint % (rest.count + 1)
    let name = String(decoding: rest.buffer[0..<cut], as: UTF8.self)
    let valueBytes = Array(rest.buffer[cut...])
    let form = choice & 3
    if form == 3 {
        checkConfigLine(name: name, value: String(decoding: valueBytes, as: UTF8.self))
        return 0
    }
    // Where the secret lives; a command costs a process, so only one input in sixteen.
    let source = choice >> 4 == 0xF ? 3 : (choice >> 2) & 3 == 3 ? 0 : (choice >> 2) & 3
    let reference: SecretReference
    var environment: [String: String] = [:]
    let expected: String
    switch source {
    case 0:
        environment["FUZZ_SECRET"] = String(decoding: valueBytes, as: UTF8.self)
        reference = .environment("FUZZ_SECRET")
        expected = environment["FUZZ_SECRET"]!
    case 1:
        reference = .literal(String(decoding: valueBytes, as: UTF8.self))
        expected = String(decoding: valueBytes, as: UTF8.self)
    default:
        let file = PosixFile(writingAtPath: secretFile, private: true)
        try? file?.write(valueBytes)
        file?.close()
        reference = source == 2 ? .file(secretFile) : .command("cat \(secretFile)")
        expected = firstLine(valueBytes)
    }
    let spec: AuthSpec
    switch form {
    case 0: spec = .header(name: name, value: reference)
    case 1: spec = .bearer(reference)
    default: spec = .basic(user: name, password: reference)
    }
    let missing = expected.isEmpty && (source != 1)
    let badValue = HTTPRequest.headerValueProblem(expected) != nil
    let badName = form == 0 ? !HTTPRequest.isHeaderName(name) : form == 2 ? HTTPRequest.headerValueProblem(name) != nil : false
    let cache = AuthHeaderCache(spec, session: session, environment: environment)
    let headers: [(name: String, value: String)]
    do {
        headers = try cache.headers()
    } catch {
        require(missing || badValue || badName, "refused a fine secret (\(spec)): \(error)")
        checkOneLine(error, value: expected, name: name)
        return 0
    }
    require(!missing && !badValue && !badName, "accepted \(spec) with a value that cannot be sent")
    let sent: String
    switch form {
    case 0: sent = "\(name): \(expected)"
    case 1: sent = "Authorization: Bearer \(expected)"
    default: sent = "Authorization: Basic " + Data("\(name):\(expected)".utf8).base64EncodedString()
    }
    checkWire(HTTPRequest(url: "http://127.0.0.1:9/hook", headers: [("Accept", "text/plain")] + headers),
              secretLine: expected.isEmpty ? nil : sent)
    return 0
}

/// A file's or command's value as documented: its first line, line breaks before it skipped.
func firstLine(_ bytes: [UInt8]) -> String {
    let isBreak: (UInt8) -> Bool = { $0 == 0x0A || $0 == 0x0D }
    guard let start = bytes.firstIndex(where: { !isBreak($0) }) else { return "" }
    let end = bytes[start...].firstIndex(where: isBreak) ?? bytes.endIndex
    return String(decoding: bytes[start..<end], as: UTF8.self)
}

func checkOneLine(_ error: Error, value: String, name: String) {
    guard let error = error as? HarkError else { return require(false, "not a HarkError: \(error)") }
    let message = error.message
    require(!message.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }, "a multi-line error: \(message)")
    require(message.contains("session \(session)"), "the error does not name the session: \(message)")
    // Masking works on the message before control characters are drawn as ^X (and clipped
    // names end in …): a value made of what drawing adds may match text that was never it.
    let drawn: Set<Unicode.Scalar> = ["*", "^", "…", "\u{FFFD}"]
    if value.unicodeScalars.count >= 8 && !value.unicodeScalars.contains(where: drawn.contains) && !name.contains(value) && !session.contains(value) && !secretFile.contains(value) {
        require(!message.contains(value), "the error shows the secret: \(message)")
    }
}

/// The request's head as hark's own transport writes it: checked, then one line per header.
func checkWire(_ request: HTTPRequest, secretLine: String?) {
    do { try request.checkHeaders() } catch { return require(false, "checkHeaders refused what resolving allowed: \(error)") }
    let head = request.head(target: "/hook", host: "127.0.0.1:9", userAgent: "hark/fuzz")
    require(head.suffix(4) == Array("\r\n\r\n".utf8), "the head does not end with an empty line")
    let lines = String(decoding: head.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
    for line in lines {
        require(!line.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\0" }, "a header line holds CR, LF or NUL: \(line.debugDescription)")
    }
    let sentHeaders = request.headers.filter { !$0.value.isEmpty }
    let explicit = Set(request.headers.map { $0.name.lowercased() })
    let defaults = ["host", "user-agent", "accept", "accept-encoding"].filter { !explicit.contains($0) }.count + 1
    require(lines.count == 1 + defaults + sentHeaders.count, "\(lines.count) lines for \(sentHeaders.count) headers: \(lines)")
    if let secretLine { require(lines.filter { $0 == secretLine }.count == 1, "the secret's header is not sent as expected") }
}

/// The spec as written in a config line (`auth = header:NAME:VALUE`): it either does not parse,
/// with one line, or resolves and builds a head whose lines hold no CR, LF or NUL.
func checkConfigLine(name: String, value: String) {
    let text = "header:\(name):\(value)"
    guard let spec = try? AuthSpec(parsing: text) else { return }
    guard spec.secret.isLiteral else { return }  // a reference would read the real environment or run a command
    do {
        let headers = try AuthHeaderCache(spec, session: session, environment: [:]).headers()
        checkWire(HTTPRequest(url: "http://127.0.0.1:9/hook", headers: headers), secretLine: nil)
    } catch {
        checkOneLine(error, value: value, name: name)
    }
}
