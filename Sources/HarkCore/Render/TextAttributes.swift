/// How a run of text looks, as data: what an SGR sequence sets. hark's own styles become these
/// through `Theme`, and a console's colours are parsed into them (`applyingSGR`), so every SGR
/// that reaches the terminal is written by `appendSGR` from parsed values, never copied.
public struct TextAttributes: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Flags(rawValue: 1)
        public static let dim = Flags(rawValue: 2)
        public static let italic = Flags(rawValue: 4)
        public static let underline = Flags(rawValue: 8)
        public static let inverse = Flags(rawValue: 16)
        public static let strike = Flags(rawValue: 32)
    }

    /// One of the terminal's 256 colours (0-15 follow the user's palette, light or dark), or a
    /// true colour a console asked for.
    public enum Color: Sendable, Equatable {
        case indexed(UInt8)
        case rgb(UInt8, UInt8, UInt8)
    }

    public var flags: Flags = []
    public var foreground: Color?
    public var background: Color?
    /// Where a link hark draws leads (OSC 8 where the terminal shows links), or nil.
    public var link: String?
    /// Text that stands for a control character or escape sequence of untrusted text: drawn
    /// dim, whatever else is set around it.
    public var inert = false

    public init(_ flags: Flags = [], foreground: Color? = nil) {
        self.flags = flags
        self.foreground = foreground
    }

    public static let plain = TextAttributes()

    public var isPlain: Bool { self == .plain }

    /// These attributes with `other`'s laid over them: its flags added, its colours where it
    /// has them.
    public func merged(_ other: TextAttributes) -> TextAttributes {
        var result = self
        result.flags.formUnion(other.flags)
        if let colour = other.foreground { result.foreground = colour }
        if let colour = other.background { result.background = colour }
        if let link = other.link { result.link = link }
        result.inert = inert || other.inert
        return result
    }

    /// The SGR that sets exactly these attributes from any others: a reset, then each one.
    public func appendSGR(to out: inout [UInt8]) {
        out.append(contentsOf: [0x1B, 0x5B, 0x30])  // ESC [ 0
        if inert {
            out.append(contentsOf: [0x3B, 0x32, 0x6D])  // ;2m
            return
        }
        let codes: [(Flags, UInt8)] = [(.bold, 1), (.dim, 2), (.italic, 3), (.underline, 4), (.inverse, 7), (.strike, 9)]
        for (flag, code) in codes where flags.contains(flag) {
            out.append(0x3B)
            Self.appendNumber(Int(code), to: &out)
        }
        if let foreground { Self.append(foreground, base: 30, to: &out) }
        if let background { Self.append(background, base: 40, to: &out) }
        out.append(0x6D)
    }

    private static func append(_ color: Color, base: Int, to out: inout [UInt8]) {
        out.append(0x3B)
        switch color {
        case .indexed(let index) where index < 8:
            appendNumber(base + Int(index), to: &out)
        case .indexed(let index) where index < 16:
            appendNumber(base + 60 + Int(index) - 8, to: &out)
        case .indexed(let index):
            appendNumber(base + 8, to: &out)
            out.append(contentsOf: [0x3B, 0x35, 0x3B])  // ;5;
            appendNumber(Int(index), to: &out)
        case .rgb(let red, let green, let blue):
            appendNumber(base + 8, to: &out)
            out.append(contentsOf: [0x3B, 0x32])  // ;2
            for part in [red, green, blue] {
                out.append(0x3B)
                appendNumber(Int(part), to: &out)
            }
        }
    }

    static func appendNumber(_ number: Int, to out: inout [UInt8]) {
        if number >= 10 { appendNumber(number / 10, to: &out) }
        out.append(0x30 + UInt8(number % 10))
    }
}

extension TextAttributes {
    /// These attributes after an SGR sequence with these parameters (the bytes between `ESC [`
    /// and `m`: numbers split by `;`, sub-parameters by `:`). What does not change how text
    /// looks in a way a reader needs is dropped: blinking, and concealed text, which would hide
    /// what a console printed.
    public func applyingSGR(_ parameters: ArraySlice<UInt8>) -> TextAttributes {
        var result = self
        let numbers = Self.numbers(parameters)
        var index = 0
        while index < numbers.count {
            let code = numbers[index].value
            index += 1
            switch code {
            case 0: result = TextAttributes(flags: [], link: link)
            case 1: result.flags.insert(.bold)
            case 2: result.flags.insert(.dim)
            case 3: result.flags.insert(.italic)
            case 4, 21: result.flags.insert(.underline)
            case 7: result.flags.insert(.inverse)
            case 9: result.flags.insert(.strike)
            case 22: result.flags.subtract([.bold, .dim])
            case 23: result.flags.remove(.italic)
            case 24: result.flags.remove(.underline)
            case 27: result.flags.remove(.inverse)
            case 29: result.flags.remove(.strike)
            case 30...37: result.foreground = .indexed(UInt8(code - 30))
            case 39: result.foreground = nil
            case 40...47: result.background = .indexed(UInt8(code - 40))
            case 49: result.background = nil
            case 90...97: result.foreground = .indexed(UInt8(code - 90 + 8))
            case 100...107: result.background = .indexed(UInt8(code - 100 + 8))
            case 38, 48:
                let (colour, used) = Self.extendedColor(numbers[index...])
                index += used
                if code == 38 { result.foreground = colour ?? result.foreground } else { result.background = colour ?? result.background }
            default: break
            }
        }
        // Text in its background's colour would be there and unseen.
        if let background = result.background, background == result.foreground { result.background = nil }
        return result
    }

    private init(flags: Flags, link: String?) {
        self.init(flags)
        self.link = link
    }

    /// `5;N` or `2;R;G;B` after a 38 or 48 (as parameters, or as sub-parameters, where
    /// `2::R:G:B` names a colour space first), and how many numbers it took.
    private static func extendedColor(_ rest: ArraySlice<(value: Int, sub: Bool)>) -> (Color?, Int) {
        guard let kind = rest.first else { return (nil, 0) }
        let values = Array(rest.dropFirst())
        switch kind.value {
        case 5:
            guard let index = values.first, index.value < 256 else { return (nil, 1) }
            return (.indexed(UInt8(index.value)), 2)
        case 2:
            let subs = values.prefix { $0.sub }.count
            let skip = kind.sub && subs >= 4 ? 1 : 0
            let parts = values.dropFirst(skip).prefix(3).map(\.value)
            guard parts.count == 3, parts.allSatisfy({ $0 < 256 }) else { return (nil, 1 + min(values.count, 3 + skip)) }
            return (.rgb(UInt8(parts[0]), UInt8(parts[1]), UInt8(parts[2])), 4 + skip)
        default:
            return (nil, 1)
        }
    }

    /// The parameters as numbers (empty is 0), each marked when it came after a `:`.
    private static func numbers(_ parameters: ArraySlice<UInt8>) -> [(value: Int, sub: Bool)] {
        var numbers: [(value: Int, sub: Bool)] = []
        var current = 0
        var sub = false
        for byte in parameters {
            switch byte {
            case 0x30...0x39: current = min(current * 10 + Int(byte - 0x30), 100_000)
            case 0x3B, 0x3A:
                numbers.append((current, sub))
                current = 0
                sub = byte == 0x3A
            default: break
            }
        }
        numbers.append((current, sub))
        return numbers
    }
}
