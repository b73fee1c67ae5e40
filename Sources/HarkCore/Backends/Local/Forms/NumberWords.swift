/// Whole numbers written as words, as people answer how many: `three`, `twenty-one`,
/// `twenty one`, `a dozen`. Up to 99; larger amounts are typed as digits.
enum NumberWords {
    static let units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tens = ["twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90]

    /// The number the words starting at `index` say, and how many words it took.
    static func value(in words: [String], at index: Int) -> (value: Double, length: Int)? {
        let word = words[index]
        if word == "dozen" { return (12, 1) }
        if let unit = units.firstIndex(of: word) { return (Double(unit), 1) }
        let parts = word.split(separator: "-").map(String.init)
        if parts.count == 2, let ten = tens[parts[0]], let unit = units.firstIndex(of: parts[1]), (1...9).contains(unit) {
            return (Double(ten + unit), 1)
        }
        guard let ten = tens[word] else { return nil }
        if index + 1 < words.count, let unit = units.firstIndex(of: words[index + 1]), (1...9).contains(unit) {
            return (Double(ten + unit), 2)
        }
        return (Double(ten), 1)
    }
}
