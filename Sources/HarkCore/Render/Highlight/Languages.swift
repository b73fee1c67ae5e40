/// The languages hark colours in fenced code, each found by the names a fence's info string
/// uses for it (```` ```py ````, ```` ```typescript ````). An unknown name is shown plain.
enum Languages {
    static func named(_ name: String) -> Language? {
        let key = name.lowercased()
        return all.first { $0.names.contains(key) }
    }

    static let all: [Language] = [swift, python, javaScript, json, shell, go, rust, c, java, sql, yaml, toml, markup, css,
                                  diff, markdown]

    static let cStrings = [Language.string("\""), Language.string("'")]

    static let swift: Language = {
        var language = Language(["swift"])
        language.keywords = Words("""
            actor associatedtype async await break case catch class continue convenience default defer deinit do dynamic else \
            enum extension fallthrough fileprivate final for func get guard if import in indirect infix init inout internal is \
            lazy let mutating nonisolated nonmutating open operator optional override postfix prefix private protocol public \
            repeat required rethrows return set some any static struct subscript super switch throw throws try typealias unowned \
            var weak where while willSet didSet consuming borrowing sending
            """)
        language.types = Words("Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float String Character Bool Void Self")
        language.literals = Words("true false nil self")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.nestedComments = true
        language.strings = [Language.string("\"\"\"", multiline: true), Language.string("\"")]
        language.capitalizedTypes = true
        language.atAttributes = true
        language.hashDirectives = true
        return language
    }()

    static let python: Language = {
        var language = Language(["python", "py", "python3"])
        language.keywords = Words("""
            and as assert async await break class continue def del elif else except finally for from global if import in is \
            lambda match case nonlocal not or pass raise return try while with yield
            """)
        language.builtins = Words("""
            print len range str int float list dict set tuple bool open type isinstance super enumerate zip map filter sorted \
            min max sum abs any all input repr id iter next hasattr getattr setattr object Exception ValueError TypeError
            """)
        language.literals = Words("True False None self cls")
        language.lineComments = Language.comments("#")
        language.strings = [Language.string("\"\"\"", multiline: true), Language.string("'''", multiline: true)] + cStrings
        language.stringPrefixes = Array("rRbBfFuU".utf8)
        language.atAttributes = true
        return language
    }()

    static let javaScript: Language = {
        var language = Language(["javascript", "js", "jsx", "typescript", "ts", "tsx", "mjs", "cjs", "node"])
        language.keywords = Words("""
            async await break case catch class const continue debugger default delete do else export extends finally for from \
            function if import in instanceof let new of return static super switch throw try typeof var void while with yield \
            interface type enum implements private protected public readonly abstract declare namespace as keyof
            """)
        language.types = Words("string number boolean any unknown never object void Promise Array Map Set Record")
        language.builtins = Words("console window document JSON Math Object process require module")
        language.literals = Words("true false null undefined this NaN Infinity")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = [Language.string("`", multiline: true)] + cStrings
        language.capitalizedTypes = true
        language.atAttributes = true
        language.nameCharacters = Array("$".utf8)
        return language
    }()

    static let json: Language = {
        var language = Language(["json", "jsonc", "json5", "jsonl"])
        language.literals = Words("true false null")
        language.strings = [Language.string("\"")]
        language.lineComments = Language.comments("//")
        language.keys = .stringsBeforeColon
        return language
    }()

    static let shell: Language = {
        var language = Language(["bash", "sh", "shell", "zsh", "console", "shellsession", "ksh", "fish"])
        language.keywords = Words("if then else elif fi for while until do done case esac in function select return local export readonly declare")
        language.builtins = Words("""
            echo cd pwd exit set unset source alias printf read test eval exec shift trap wait kill sudo cat grep sed awk ls \
            mkdir rm cp mv curl git make chmod chown tar find xargs
            """)
        language.lineComments = Language.comments("#")
        language.strings = [Language.string("\"", multiline: true), Language.string("'", multiline: true, escapes: false)]
        language.variables = true
        language.nameCharacters = Array("-.".utf8)
        return language
    }()

    static let go: Language = {
        var language = Language(["go", "golang"])
        language.keywords = Words("""
            break case chan const continue default defer else fallthrough for func go goto if import interface map package range \
            return select struct switch type var
            """)
        language.types = Words("""
            bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 \
            uint64 uintptr any
            """)
        language.builtins = Words("append cap close copy delete len make new panic print println recover")
        language.literals = Words("true false nil iota")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = [Language.string("`", multiline: true, escapes: false)] + cStrings
        return language
    }()

    static let rust: Language = {
        var language = Language(["rust", "rs"])
        language.keywords = Words("""
            as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref \
            return static struct super trait type unsafe use where while
            """)
        language.types = Words("i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box Self")
        language.builtins = Words("println print format vec panic assert assert_eq eprintln write writeln")
        language.literals = Words("true false self Some None Ok Err")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.nestedComments = true
        language.strings = [Language.string("\"", multiline: true), Language.string("'")]
        language.capitalizedTypes = true
        language.hashDirectives = true
        language.lifetimes = true
        return language
    }()

    static let c: Language = {
        var language = Language(["c", "h", "cpp", "c++", "cc", "cxx", "hpp", "objc", "objective-c", "csharp", "cs", "c#"])
        language.keywords = Words("""
            auto break case catch class const constexpr continue default delete do else enum explicit extern for friend goto if \
            inline namespace new noexcept operator private protected public register return sizeof static struct switch \
            template this throw try typedef typename union using virtual volatile while override final
            """)
        language.types = Words("""
            int char short long float double void bool unsigned signed size_t int8_t int16_t int32_t int64_t uint8_t uint16_t \
            uint32_t uint64_t std string vector auto
            """)
        language.literals = Words("true false NULL nullptr")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = cStrings
        language.hashDirectives = true
        return language
    }()

    static let java: Language = {
        var language = Language(["java", "kotlin", "kt", "scala", "groovy", "dart"])
        language.keywords = Words("""
            abstract assert break case catch class const continue default do else enum extends final finally for goto if \
            implements import instanceof interface native new package private protected public return static strictfp super \
            switch synchronized throw throws transient try volatile while var val fun record sealed permits yield
            """)
        language.types = Words("boolean byte char double float int long short void String Object Integer List Map")
        language.literals = Words("true false null this")
        language.lineComments = Language.comments("//")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = [Language.string("\"\"\"", multiline: true)] + cStrings
        language.capitalizedTypes = true
        language.atAttributes = true
        return language
    }()

    static let sql: Language = {
        var language = Language(["sql", "sqlite", "postgresql", "postgres", "mysql", "plsql"])
        language.keywords = Words("""
            select from where insert into values update set delete create table drop alter add column index view trigger on \
            join left right inner outer full cross group by order having limit offset as and or not in is like between exists \
            distinct union all case when then else end primary key foreign references unique default check begin commit \
            rollback transaction with returning if replace asc desc natural using
            """)
        language.types = Words("int integer bigint smallint text varchar char real double float numeric decimal boolean blob date time timestamp serial")
        language.literals = Words("null true false")
        language.lineComments = Language.comments("--")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = [Language.string("'", escapes: false), Language.string("\"", escapes: false)]
        language.caseInsensitive = true
        return language
    }()

    static let yaml: Language = {
        var language = Language(["yaml", "yml"])
        language.literals = Words("true false null yes no on off ~ True False Null")
        language.lineComments = Language.comments("#")
        language.strings = cStrings
        language.keys = .namesBeforeColon
        language.nameCharacters = Array("-./".utf8)
        return language
    }()

    static let toml: Language = {
        var language = Language(["toml", "ini", "cfg", "conf", "properties"])
        language.literals = Words("true false")
        language.lineComments = Language.comments("#", ";")
        language.strings = [Language.string("\"\"\"", multiline: true), Language.string("'''", multiline: true, escapes: false)]
            + cStrings
        language.keys = .namesBeforeEquals
        language.sectionHeaders = true
        language.nameCharacters = Array("-.".utf8)
        return language
    }()

    static let markup: Language = {
        var language = Language(["html", "xml", "svg", "xhtml", "vue", "plist"], shape: .markup)
        language.blockComment = (Array("<!--".utf8), Array("-->".utf8))
        language.strings = cStrings
        return language
    }()

    static let css: Language = {
        var language = Language(["css", "scss", "less", "sass"])
        language.keywords = Words("important inherit initial unset none auto")
        language.blockComment = (Array("/*".utf8), Array("*/".utf8))
        language.strings = cStrings
        language.atAttributes = true
        language.keys = .properties
        language.nameCharacters = Array("-".utf8)
        return language
    }()

    static let diff = Language(["diff", "patch", "udiff"], shape: .diff)

    static let markdown = Language(["markdown", "md", "mdx"], shape: .markdown)
}
