import FoundationEssentials
import Glibc

/// The kinds of file the document library reads, told by the file's extension.
public enum DocumentFormat: String, Sendable {
    case markdown, text, source, pdf

    static let sourceExtensions: Set<String> = [
        "swift", "c", "h", "cc", "cpp", "hpp", "m", "mm", "rs", "go", "py", "rb", "pl", "php", "java", "kt", "kts", "scala",
        "cs", "fs", "js", "mjs", "cjs", "ts", "tsx", "jsx", "vue", "svelte", "css", "scss", "html", "htm", "xml", "json", "yaml",
        "yml", "toml", "ini", "cfg", "conf", "sql", "sh", "bash", "zsh", "fish", "ps1", "lua", "r", "jl", "ex", "exs", "erl",
        "hs", "ml", "clj", "dart", "zig", "nim", "tex", "cmake", "gradle", "proto", "graphql", "tf",
    ]
    static let sourceNames: Set<String> = ["makefile", "dockerfile", "gemfile", "rakefile", "cmakelists.txt", "justfile"]

    /// The format of a file, or nil for one the library does not read (images, archives…).
    public static func of(_ path: String) -> DocumentFormat? {
        let name = path.lastPathComponent.lowercased()
        if sourceNames.contains(name) { return .source }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = String(name[name.index(after: dot)...])
        switch ext {
        case "md", "markdown", "mdown", "mkd": return .markdown
        case "txt", "text", "rst", "org", "adoc", "log", "csv", "tsv": return .text
        case "pdf": return .pdf
        default: return sourceExtensions.contains(ext) ? .source : nil
        }
    }

    /// Said once when a PDF is met and pdftotext is missing.
    public static let pdfHint = "PDFs are read with pdftotext: apt install poppler-utils, then /docs reindex"

    /// The file's text as bytes: read as it is, or (PDF) through `pdftotext`, pages separated
    /// by form feeds. Binary files (a NUL in the first 8 KB) are refused.
    static func text(of path: String, format: DocumentFormat) throws -> [UInt8] {
        if format == .pdf {
            guard let tool = pdftotext else { throw HarkError.io(pdfHint) }
            let result = try Subprocess.run([tool, "-q", "-enc", "UTF-8", path, "-"])
            guard result.status == 0 else {
                throw HarkError.io("pdftotext could not read \(path) (status \(result.status))")
            }
            return [UInt8](result.stdout)
        }
        guard let file = PosixFile(readingAtPath: path) else {
            throw HarkError.io("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = file.readToEnd()
        if bytes.prefix(8192).contains(0) { throw HarkError.io("\(path) looks like a binary file") }
        return bytes
    }

    /// A PDF's text as a model reads it: each page under a `[page N]` line, the pages apart by
    /// a blank line (pdftotext ends each with a form feed, as the Chunker reads them).
    static func numberedPages(of path: String) throws -> String {
        let text = String(decoding: try self.text(of: path, format: .pdf), as: UTF8.self)
        var pages = text.split(separator: "\u{0C}", omittingEmptySubsequences: false).map(String.init)
        if pages.count > 1, pages.last?.trimmed.isEmpty == true { pages.removeLast() }
        return pages.enumerated().map { index, page in
            var page = page
            while page.hasSuffix("\n") { page.removeLast() }
            return "[page \(index + 1)]\n" + page
        }.joined(separator: "\n\n")
    }

    /// Where `pdftotext` is, looked up once on PATH.
    static let pdftotext: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = String(directory) + "/pdftotext"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()
}
