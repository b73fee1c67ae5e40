/// What the tokenizer needs to know of a programming language to colour it: its words, how
/// its comments and strings are written, and the few rules of its own (a YAML key, a diff's
/// added line). One value per language, in `Languages`; the tokenizer is shared.
struct Language: Sendable {
    enum Shape: Sendable {
        /// Words, strings, comments and numbers, as most languages are written.
        case code
        /// Each line's first characters decide the whole line (+, -, @@).
        case diff
        /// Tags, attributes, entities.
        case markup
        /// Markdown in a code block: headings, list markers, inline code.
        case markdown
    }

    /// Which names are keys: JSON's strings before a colon, YAML's and TOML's names at a line's
    /// start, CSS's properties.
    enum Keys: Sendable { case none, stringsBeforeColon, namesBeforeColon, namesBeforeEquals, properties }

    struct StringForm: Sendable {
        var open: [UInt8]
        var close: [UInt8]
        var multiline = false
        var escapes = true
    }

    var names: [String]
    var shape: Shape = .code
    var keywords = Words([])
    var types = Words([])
    var builtins = Words([])
    var literals = Words([])
    var lineComments: [[UInt8]] = []
    var blockComment: (open: [UInt8], close: [UInt8])?
    var nestedComments = false
    var strings: [StringForm] = []
    /// Letters that may stand before a string's quote (Python's f"…", r"…", b"…").
    var stringPrefixes: [UInt8] = []
    var caseInsensitive = false
    /// Names starting with a capital letter are types (Swift, Rust, Java…).
    var capitalizedTypes = false
    /// `$name` (shells) is a variable.
    var variables = false
    /// `@name` (decorators, attributes, annotations, CSS at-rules) is an attribute.
    var atAttributes = false
    /// `#name` at a line's start (C's preprocessor, Swift's `#if`) is an attribute.
    var hashDirectives = false
    /// `'a` is a lifetime, not an unclosed character (Rust).
    var lifetimes = false
    /// Characters besides letters, digits and `_` that names may hold (`-` in CSS).
    var nameCharacters: [UInt8] = []
    var keys = Keys.none
    /// `[section]` lines (TOML) are headers.
    var sectionHeaders = false

    init(_ names: [String], shape: Shape = .code) {
        self.names = names
        self.shape = shape
    }

    static func comments(_ markers: String...) -> [[UInt8]] { markers.map { Array($0.utf8) } }

    static func string(_ open: String, _ close: String? = nil, multiline: Bool = false, escapes: Bool = true) -> StringForm {
        StringForm(open: Array(open.utf8), close: Array((close ?? open).utf8), multiline: multiline, escapes: escapes)
    }
}

/// A sorted list of words, looked up by binary search on their bytes (no hashing: see
/// `Theme.token`).
struct Words: Sendable {
    private let sorted: [[UInt8]]

    init(_ words: [String]) {
        sorted = words.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    init(_ text: String) {
        self.init(text.split(separator: " ").map(String.init))
    }

    func contains(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        var low = 0
        var high = sorted.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let order = Self.compare(sorted[middle], word)
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return false
    }

    private static func compare(_ left: [UInt8], _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let count = min(left.count, right.count)
        for index in 0..<count where left[index] != right[index] {
            return left[index] < right[index] ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
