import FoundationEssentials
import Glibc

/// How one session checks the TLS certificate of its server. Jenkins (and Monica, Nyla…) often
/// run inside a company behind a private CA, or with a certificate the admin pins: `ca` names a
/// PEM bundle trusted instead of the system's, `pin` the SHA-256 of the server's public key
/// (libcurl's CURLOPT_PINNEDPUBLICKEY, the format `curl --pinnedpubkey` takes), checked in
/// addition to the chain. `insecure` skips the chain and host checks; a pin still applies.
/// The session's proxy travels here too, as it decides how every connection is made.
public struct TLSOptions: Sendable, Equatable {
    public var insecure: Bool
    /// A PEM file of CA certificates, tilde expanded.
    public var caFile: String?
    /// `sha256//BASE64`, several joined by `;`.
    public var pinnedKeys: String?
    /// `proxy`: the environment's, none, or a URL (see ProxyRoute).
    public var proxy: ProxySetting
    /// `proxy_auth`: `basic:USER:SECRET` for a proxy that asks (407).
    public var proxyAuth: ProxyCredentials?

    public init(insecure: Bool = false, caFile: String? = nil, pinnedKeys: String? = nil,
                proxy: ProxySetting = .environment, proxyAuth: ProxyCredentials? = nil) {
        self.insecure = insecure
        self.caFile = caFile
        self.pinnedKeys = pinnedKeys
        self.proxy = proxy
        self.proxyAuth = proxyAuth
    }

    /// Checks the settings as a user wrote them: the bundle must be a readable file, each pin
    /// `sha256//` and the base64 of 32 bytes.
    public static func parse(insecure: Bool, ca: String?, pin: String?, proxy: String? = nil, proxyAuth: String? = nil,
                             session: String) throws -> TLSOptions {
        var options = TLSOptions(insecure: insecure, proxy: try ProxySetting.parse(proxy, session: session))
        if let proxyAuth = proxyAuth?.trimmingSpaces, !proxyAuth.isEmpty {
            options.proxyAuth = ProxyCredentials(spec: proxyAuth)
        }
        if let ca = ca?.trimmingSpaces, !ca.isEmpty {
            let path = ca.expandingTildeInPath
            guard access(path, R_OK) == 0 else {
                throw HarkError.badSetting(session: session, problem: "ca = \(ca) is not a file hark can read; give the path of your CA bundle (PEM)")
            }
            options.caFile = path
        }
        if let pin = pin?.trimmingSpaces, !pin.isEmpty {
            let pins = pin.split(separator: ";").map { $0.trimmingSpaces }
            for one in pins where !isPin(one) {
                throw HarkError.badSetting(session: session, problem: "pin must be sha256// and the base64 SHA-256 of the server's public key, "
                    + "not \"\(one.prefix(60))\" (see docs/jenkins.md, TLS)")
            }
            options.pinnedKeys = pins.joined(separator: ";")
        }
        return options
    }

    static func isPin(_ text: String) -> Bool {
        guard text.hasPrefix("sha256//") else { return false }
        let digest = text.dropFirst("sha256//".count)
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        // 32 bytes are 43 base64 characters and one "=".
        return digest.count == 44 && digest.hasSuffix("=") && digest.dropLast().allSatisfy { alphabet.contains($0) }
    }

    /// For `/info`: what is checked, in a few words; nil for the system's defaults.
    public var summary: String? {
        var parts: [String] = []
        if insecure { parts.append("certificate checks OFF (insecure = on)") }
        if let caFile { parts.append("trusts the CA bundle \(caFile)") }
        if pinnedKeys != nil { parts.append("public key pinned") }

        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
