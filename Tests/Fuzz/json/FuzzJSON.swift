/// Fuzz target: the project's JSON (JSON/): JSONParser, JSONEncoding and JSONScanner, which
/// read every backend's payloads. Properties, for any bytes:
/// - parse never crashes; what it accepts, encoding writes back so that parsing the text
///   gives the same value, compact and pretty (numbers too large for a Double are the
///   exception: they parse as infinity, which JSON cannot write, so encoding writes null);
/// - the encoding holds no raw control character other than pretty printing's newlines;
/// - the scanner accepts what the parser accepts, and reads the same strings and integers
///   (below 2^53, where a Double is exact) from the members of an object;
/// - for a string token, appendString gives the bytes of the parsed string, and refuses
///   (leaving the buffer as it was) exactly what the parser refuses.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let bytes = input.bytes
    checkAppendString(bytes)
    guard let value = try? JSON.parse(bytes) else { return 0 }
    if isFinite(value) {
        for pretty in [false, true] {
            let encoded = JSONEncoding.bytes(value, pretty: pretty)
            require(!encoded.contains { $0 < 0x20 && !(pretty && $0 == 0x0A) }, "raw control character in \(encoded)")
            let reparsed = try? JSON.parse(encoded)
            require(reparsed == value, "\(value) encoded as \(String(decoding: encoded, as: UTF8.self)) parsed as \(String(describing: reparsed))")
        }
    }
    checkScanner(bytes, value)
    return 0
}

func checkAppendString(_ bytes: [UInt8]) {
    // A token, as the scanner hands it: from its opening quote to its last byte.
    guard bytes.first == UInt8(ascii: "\""), bytes.count >= 2, bytes.last == UInt8(ascii: "\"") else { return }
    let parsed = (try? JSON.parse(bytes))?.string
    var text: [UInt8] = [0x61]
    do {
        try bytes.withUnsafeBufferPointer { try JSONParser.appendString($0, to: &text) }
        require(parsed.map { [0x61] + Array($0.utf8) } == text, "appendString gave \(text), parse \(String(describing: parsed))")
    } catch {
        require(parsed == nil, "appendString refused what parse read as \(String(describing: parsed))")
        require(text == [0x61], "a refused token changed the buffer to \(text)")
    }
}

func isFinite(_ value: JSON) -> Bool {
    switch value {
    case .number(let number): return number.isFinite
    case .array(let items): return items.allSatisfy(isFinite)
    case .object(let members): return members.values.allSatisfy(isFinite)
    default: return true
    }
}

func checkScanner(_ bytes: [UInt8], _ value: JSON) {
    do {
        try JSONScanner.scan(bytes) { try $0.skip() }
    } catch {
        require(false, "the scanner refused what the parser read as \(value): \(error)")
    }
    guard let members = value.object else { return }
    var strings: [String: String?] = [:]
    var ints: [String: Int?] = [:]
    do {
        try JSONScanner.scan(bytes) { root in
            try root.forEachMember { key, scanner in
                let name = String(decoding: key.bytes, as: UTF8.self)
                // Keys are compared raw by the scanner: only plain ones can be matched here.
                guard !key.bytes.contains(UInt8(ascii: "\\")), let parsed = members[name] else { return try scanner.skip() }
                switch parsed {
                case .string: strings[name] = try scanner.string()
                case .number: ints[name] = try scanner.int()
                default: try scanner.skip()
                }
            }
        }
    } catch {
        require(false, "the scanner failed on members of \(value): \(error)")
    }
    for (name, string) in strings where members[name]?.string != nil {
        require(string == members[name]?.string, "scanner read \(name) as \(String(describing: string)), parser as \(members[name]!)")
    }
    for (name, int) in ints {
        // Up to 2^53, where a Double holds every integer: beyond, the parser's Double rounds
        // (9007199254740993 reads as ...992) while the scanner reads the digits exactly.
        if let expected = members[name]?.int, abs(expected) < 1 << 53 {
            require(int == expected, "scanner read \(name) as \(String(describing: int)), parser as \(expected)")
        }
    }
}
