import HarkCore

/// The keys of the hands-free loop: Esc ends it (status 0), Ctrl-C too (130); F5 or Ctrl-G,
/// the keys that start dictation in the shell, pause listening and resume it (push to talk).
/// Other keys, and other escape sequences (an arrow, Alt with a letter), are dropped.
enum TalkKeys {
    enum Action: Equatable {
        case stop(Int32)
        case toggle
    }

    /// F5 after Esc: xterm, tmux and most terminals send `[15~`, the Linux console `[[E`.
    static let f5: Set<[UInt8]> = [Array("[15~".utf8), Array("[[E".utf8)]

    /// What the keys pressed together ask for: ending wins over pausing, Ctrl-C over Esc.
    static func action(_ keys: [UInt8]) -> Action? {
        var result: Action?
        var index = 0
        func take(_ action: Action) {
            switch (result, action) {
            case (.stop(HarkError.ExitCode.interrupted.rawValue), _), (.stop, .toggle): break
            default: result = action
            }
        }
        while index < keys.count {
            let key = keys[index]
            index += 1
            switch key {
            case 0x03: take(.stop(HarkError.ExitCode.interrupted.rawValue))
            case 0x07: take(.toggle)
            case 0x1B:
                let sequence = Self.sequence(in: keys, from: index)
                index += sequence.count
                if sequence.isEmpty { take(.stop(0)) } else if f5.contains(sequence) { take(.toggle) }
            default: break
            }
        }
        return result
    }

    /// The escape sequence after an Esc at `start - 1`: `[`, its parameters and its final byte,
    /// `O` and one byte, or one byte (Alt with a key); empty for an Esc alone.
    static func sequence(in keys: [UInt8], from start: Int) -> [UInt8] {
        guard start < keys.count else { return [] }
        switch keys[start] {
        case UInt8(ascii: "["):
            var end = start + 1
            // The Linux console's function keys: `[[A` to `[[E`.
            if end < keys.count, keys[end] == UInt8(ascii: "[") { return Array(keys[start..<min(end + 2, keys.count)]) }
            while end < keys.count, !(0x40...0x7E).contains(keys[end]) { end += 1 }
            return Array(keys[start..<min(end + 1, keys.count)])
        case UInt8(ascii: "O"):
            return Array(keys[start..<min(start + 2, keys.count)])
        default:
            return [keys[start]]
        }
    }

    /// The keys end partway through an escape sequence: the rest is still on its way.
    static func endsInsideSequence(_ keys: [UInt8]) -> Bool {
        guard let escape = keys.lastIndex(of: 0x1B) else { return false }
        let sequence = Self.sequence(in: keys, from: escape + 1)
        guard let first = sequence.first else { return false }
        switch first {
        case UInt8(ascii: "["):
            if sequence.count >= 2, sequence[1] == UInt8(ascii: "[") { return sequence.count < 3 }
            return sequence.count < 2 || !(0x40...0x7E).contains(sequence.last!)
        case UInt8(ascii: "O"): return sequence.count < 2
        default: return false
        }
    }
}
