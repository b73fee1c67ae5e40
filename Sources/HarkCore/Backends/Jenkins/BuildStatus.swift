/// How a job or build stands, from a job's ball colour (`blue`, `red_anime`…) or a build's
/// result (`SUCCESS`…), with the mark and word hark shows for it.
public enum BuildStatus: Sendable, Equatable {
    case success, failure, unstable, aborted, notBuilt, disabled, unknown

    /// A job's `color`; the `_anime` suffix (building) is read separately by `isBuilding`.
    public init(color: String) {
        switch color.replacingOccurrences(of: "_anime", with: "") {
        case "blue", "green": self = .success
        case "red": self = .failure
        case "yellow": self = .unstable
        case "aborted": self = .aborted
        // BallColor: NOTBUILT exports as "notbuilt"; GREY ("grey"), which plugins' items use
        // for "never built" (Jenkins' own label for it is "Disabled" though the job is not).
        case "notbuilt", "nobuilt", "grey": self = .notBuilt
        case "disabled": self = .disabled
        default: self = .unknown
        }
    }

    /// A build's `result`.
    public init(result: String) {
        switch result {
        case "SUCCESS": self = .success
        case "FAILURE": self = .failure
        case "UNSTABLE": self = .unstable
        case "ABORTED": self = .aborted
        case "NOT_BUILT": self = .notBuilt
        default: self = .unknown
        }
    }

    /// The ball spins while a build of the job runs.
    public static func isBuilding(color: String) -> Bool { color.hasSuffix("_anime") }

    public var mark: String {
        switch self {
        case .success: return "✓"
        case .failure: return "✗"
        case .unstable: return "!"
        case .aborted: return "■"
        case .notBuilt: return "·"
        case .disabled: return "⊘"
        case .unknown: return "?"
        }
    }

    public var word: String {
        switch self {
        case .success: return "success"
        case .failure: return "failing"
        case .unstable: return "unstable"
        case .aborted: return "aborted"
        case .notBuilt: return "not built"
        case .disabled: return "disabled"
        case .unknown: return "no status"
        }
    }

    public var style: Style {
        switch self {
        case .success: return .success
        case .failure: return .error
        case .unstable: return .warning
        case .aborted, .notBuilt, .disabled, .unknown: return .dim
        }
    }
}
