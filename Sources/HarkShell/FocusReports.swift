import HarkCore

/// The terminal's focus reports (`CSI I`, `CSI O`), taken out of the keys before anything
/// reads them, and the focus they say. Only whole reports within one read are recognised:
/// holding a lone ESC back to see what follows would delay the Escape key. A terminal writes
/// each report at once, so it arrives whole.
public final class FocusTracker: Sendable {
    private let state = Locked(TerminalFocus.unknown)

    public init() {}

    public var focus: TerminalFocus { state.read { $0 } }

    /// `bytes` without the focus reports in them.
    public func filter(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 3, bytes.contains(0x1B) else { return bytes }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, index + 2 < bytes.count, bytes[index + 1] == 0x5B,
               bytes[index + 2] == 0x49 || bytes[index + 2] == 0x4F {
                let focused = bytes[index + 2] == 0x49
                state.update { $0 = focused ? .focused : .unfocused }
                index += 3
                continue
            }
            kept.append(bytes[index])
            index += 1
        }
        return kept
    }
}

/// Focus reporting on the real terminal: asked for by the shell, on while hark takes keys
/// itself, off while an editor, a pager or a question has the terminal, and at exit.
final class FocusReporting: @unchecked Sendable {
    static let enable = "\u{1B}[?1004h"
    static let disable = "\u{1B}[?1004l"
    private let lock = Lock()
    private var wanted = false
    private var enabled = false

    /// The shell asks for reports (or no longer does); `keys`: hark takes keys now.
    func want(_ on: Bool, keys: Bool, write: (String) -> Void) {
        lock.withLock { wanted = on }
        apply(keys: keys, write: write)
    }

    /// The key mode changed: reports only while hark takes keys itself.
    func keyMode(_ mode: KeyMode, write: (String) -> Void) {
        apply(keys: mode == .keys, write: write)
    }

    private func apply(keys: Bool, write: (String) -> Void) {
        let change: String? = lock.withLock {
            let on = wanted && keys
            guard on != enabled else { return nil }
            enabled = on
            return on ? Self.enable : Self.disable
        }
        if let change { write(change) }
    }
}
