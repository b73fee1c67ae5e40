import FoundationEssentials
import Glibc

/// A job's full name, `team/app`, and the URL path Jenkins serves it under,
/// `/job/team/job/app/`. Folders nest one `/job/NAME` segment per level.
public struct JobPath: Sendable, Hashable, CustomStringConvertible {
    public var components: [String]

    public init(_ components: [String]) {
        self.components = components
    }

    /// `team/app`; empty parts (a doubled or trailing slash) are ignored.
    public init?(parsing name: String) {
        let parts = name.split(separator: "/").map(String.init).filter { !$0.isEmpty }
        guard !parts.isEmpty else { return nil }
        components = parts
    }

    /// The job a Jenkins URL points at (`http://ci/job/team/job/app/12/` → `team/app`); nil
    /// when the URL names no job.
    public init?(url: String) {
        let path = URLComponents(string: url)?.percentEncodedPath ?? url
        let segments = path.split(separator: "/").map(String.init)
        var found: [String] = []
        var index = 0
        while index < segments.count {
            if segments[index] == "job", index + 1 < segments.count {
                found.append(segments[index + 1].percentDecoded ?? segments[index + 1])
                index += 2
            } else {
                index += 1
            }
        }
        guard !found.isEmpty else { return nil }
        components = found
    }

    /// `team/app`, each part as people read it: a multibranch project names a branch's job
    /// with branch-api's NameEncoder (`feature/x` becomes `feature%2Fx`), which is undone here.
    public var description: String { components.map(Self.decoded).joined(separator: "/") }

    /// The last part, decoded: what Jenkins shows as the job's name.
    public var leaf: String { components.last.map(Self.decoded) ?? "" }

    /// A child of this folder, by the name Jenkins gives it.
    public func appending(_ name: String) -> JobPath { JobPath(components + [name]) }

    /// NameEncoder.decode: percent escapes undone (`%2F` → `/`).
    static func decoded(_ name: String) -> String {
        name.contains("%") ? (name.percentDecoded ?? name) : name
    }

    /// `/job/team/job/app/`, each name percent-encoded.
    public var urlPath: String {
        components.map { "/job/" + Self.encode($0) }.joined() + "/"
    }


    /// A path segment: everything but unreserved characters escaped, so a `/`, `#`, `?` or a
    /// space in a job name cannot change what the URL means.
    static func encode(_ segment: String) -> String {
        segment.percentEncoded(keeping: "-._~")
    }
}
