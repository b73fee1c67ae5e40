/// A password written into a URL (`http://ann:PASS@host/…`). It is a literal secret like any
/// other: refused in a config file others can read, and otherwise sent as Basic auth (as curl
/// and browsers do), never as part of the URL, which reaches error lines and logs.
public struct URLCredentials: Sendable, Equatable {
    public var user: String
    public var password: String
    /// The URL with the user and password taken out.
    public var url: String

    /// The credentials in `url`, or nil when it carries no password (a user name alone is not
    /// a secret and stays where it is). Both halves are percent-decoded, as RFC 3986 writes
    /// them.
    public init?(in url: String) {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityStart = scheme.upperBound
        let authorityEnd = url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return nil }
        let userInfo = url[authorityStart..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return nil }
        user = Self.percentDecoded(userInfo[..<colon])
        password = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
        self.url = String(url[..<authorityStart]) + String(url[url.index(after: at)...])
    }

    /// `%XX` sequences as bytes; anything else (a stray `%`) as written.
    static func percentDecoded(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                decoded.append(value)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
