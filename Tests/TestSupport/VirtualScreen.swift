import HarkCore

/// A terminal screen as hark's renderers drive it, to compare what two byte streams leave on
/// it: cells with their character, SGR and link; the cursor moved by CR, LF, `CSI n C` and
/// erased by `CSI K`. Anything else that moves the cursor or changes the screen is recorded
/// as a fault, as is a character written past the last column (the terminal would have
/// wrapped the line itself: hark must never leave that to it).
public struct VirtualScreen: Equatable, CustomStringConvertible {
    public struct Cell: Equatable {
        public var text: String
        public var style: String
        public var link: String
    }

    public let width: Int
    public private(set) var rows: [[Cell]] = [[]]
    public private(set) var faults: [String] = []
    private var column = 0
    private var style = ""
    private var link = ""

    public init(width: Int) {
        self.width = width
    }

    public init(width: Int, showing output: String) {
        self.init(width: width)
        apply(output)
    }

    /// The text of each row, trailing spaces dropped.
    public var lines: [String] {
        var lines = rows.map { row -> String in
            var text = row.map(\.text).joined()
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    public var text: String { lines.joined(separator: "\n") }

    /// Two screens are the same when a person sees the same: every cell with its look, blank
    /// cells at the ends of rows and blank rows at the end aside.
    public static func == (left: VirtualScreen, right: VirtualScreen) -> Bool {
        left.width == right.width && left.visibleRows == right.visibleRows && left.faults == right.faults
    }

    /// Where `other` first differs from this screen, for a test's message.
    public func difference(from other: VirtualScreen) -> String {
        let mine = visibleRows, theirs = other.visibleRows
        for row in 0..<max(mine.count, theirs.count) {
            let left = row < mine.count ? mine[row] : [], right = row < theirs.count ? theirs[row] : []
            for column in 0..<max(left.count, right.count) {
                let a = column < left.count ? left[column] : nil, b = column < right.count ? right[column] : nil
                if a != b { return "row \(row + 1), column \(column + 1): \(String(describing: a)) against \(String(describing: b))" }
            }
        }
        return faults == other.faults ? "no difference" : "faults \(faults) against \(other.faults)"
    }

    private var visibleRows: [[Cell]] {
        var result = rows.map { row -> [Cell] in
            var row = row
            while let last = row.last, last.text == " " || last.text.isEmpty, last.style.isEmpty || last.text.isEmpty { row.removeLast() }
            return row
        }
        while result.last?.isEmpty == true { result.removeLast() }
        return result
    }
    public var description: String { text }

    /// The style (SGR parameters) of the first cell showing `text` on the screen, or nil.
    public func style(of text: String) -> String? {
        for row in rows {
            let joined = row.map(\.text)
            for start in joined.indices where joined[start...].joined().hasPrefix(text) { return row[start].style }
        }
        return nil
    }

    /// The link target of the first cell showing `text`, or nil.
    public func link(of text: String) -> String? {
        for row in rows {
            let joined = row.map(\.text)
            for start in joined.indices where joined[start...].joined().hasPrefix(text) { return row[start].link }
        }
        return nil
    }

    public mutating func apply(_ output: String) {
        var scalars = Array(output.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\u{1B}": escape(&scalars)
            case "\r": column = 0
            case "\n":
                rows.append([])
                column = 0
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    faults.append("control U+\(String(scalar.value, radix: 16)) written")
                    continue
                }
                put(scalar)
            }
        }
    }

    private mutating func put(_ scalar: Unicode.Scalar) {
        let cells = TextWidth.of(scalar)
        var row = rows[rows.count - 1]
        if cells == 0 {
            if let last = row.indices.last { row[last].text.unicodeScalars.append(scalar) }
            rows[rows.count - 1] = row
            return
        }
        if column + cells > width { faults.append("row \(rows.count) written past column \(width): the terminal would wrap it") }
        while row.count < column + cells { row.append(Cell(text: " ", style: "", link: "")) }
        row[column] = Cell(text: String(scalar), style: style, link: link)
        if cells == 2 { row[column + 1] = Cell(text: "", style: style, link: link) }
        column += cells
        rows[rows.count - 1] = row
    }

    private mutating func escape(_ scalars: inout ArraySlice<Unicode.Scalar>) {
        guard let kind = scalars.popFirst() else { return faults.append("ESC at the end") }
        switch kind {
        case "[":
            var parameters = ""
            while let next = scalars.popFirst() {
                if (0x40...0x7E).contains(next.value) {
                    csi(parameters, final: next)
                    return
                }
                parameters.unicodeScalars.append(next)
            }
            faults.append("CSI without its end")
        case "]":
            var body = ""
            while let next = scalars.popFirst() {
                if next == "\u{7}" { break }
                if next == "\u{1B}", scalars.first == "\\" {
                    scalars.removeFirst()
                    break
                }
                body.unicodeScalars.append(next)
            }
            if body.hasPrefix("8;") {
                link = String(body.dropFirst(2).drop { $0 != ";" }.dropFirst())
            } else {
                faults.append("OSC \(body.prefix(8))")
            }
        default:
            faults.append("ESC \(kind)")
        }
    }

    private mutating func csi(_ parameters: String, final: Unicode.Scalar) {
        switch final {
        case "m": style = parameters == "0" || parameters.isEmpty ? "" : parameters
        case "C": column += Int(parameters) ?? 1
        case "K":
            var row = rows[rows.count - 1]
            if row.count > column { row.removeSubrange(column...) }
            rows[rows.count - 1] = row
        default: faults.append("CSI \(parameters)\(final)")
        }
    }
}
