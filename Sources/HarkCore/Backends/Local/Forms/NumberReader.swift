/// Numbers inside a sentence: `about 40 euros`, `€1,250.50`, `1.250,50 EUR`, `I drove 320 km`.
/// When some numbers stand by the field's unit or a currency, only those count; a number that
/// belongs to a date (`3 March`, `3rd`) or a time (`10:30`) is no amount.
enum NumberReader {
    static let currencySigns: Set<String> = ["€", "$", "£"]

    /// `words`: whole numbers may be written as words (a count: `three of them`); amounts and
    /// measures are left to digits.
    static func candidates(in text: String, unit: String?, words readsWords: Bool = false) -> [AnswerReader.Candidate] {
        let units = aliases(for: unit)
        let tokens = text.split(whereSeparator: \.isWhitespace).map { String($0).trimmingEnds("(),;:!?\"'") }
        var found: [(readings: [Double], byUnit: Bool)] = []
        let words = tokens.map { $0.lowercased().trimmingEnds(".") }
        var skipped = 0
        for (index, raw) in tokens.enumerated() {
            if skipped > 0 {
                skipped -= 1
                continue
            }
            if readsWords, let (value, length) = NumberWords.value(in: words, at: index) {
                skipped = length - 1
                let next = index + length < words.count ? words[index + length] : ""
                if units.contains(next) || !otherUnits.contains(next) { found.append(([value], units.contains(next))) }
                continue
            }
            var token = raw
            if token.hasSuffix("."), token.dropLast().last?.isNumber == true || token.dropLast().last?.isLetter == true {
                token.removeLast()
            }
            var byUnit = false
            while let first = token.first, currencySigns.contains(String(first)) {
                token.removeFirst()
                byUnit = true
            }
            var suffix = ""
            while let last = token.last, last.isLetter || currencySigns.contains(String(last)) {
                suffix = String(last) + suffix
                token.removeLast()
            }
            guard let first = token.first, first.isNumber || first == "-" || first == "+" || first == "." else { continue }
            if !suffix.isEmpty {
                guard units.contains(suffix.lowercased()) else { continue }
                byUnit = true
            }
            let previous = index > 0 ? tokens[index - 1].lowercased() : ""
            let next = index + 1 < tokens.count ? tokens[index + 1].lowercased().trimmingEnds(".") : ""
            if DateWords.month(previous) != nil || DateWords.month(next) != nil { continue }
            if units.contains(previous) || units.contains(next) { byUnit = true }
            // `3 days ago` counts days, `12 km` is a distance: not an amount in euros.
            if !byUnit, otherUnits.contains(next) { continue }
            let readings = FieldCheck.numberReadings(token, unit: nil)
            if !readings.isEmpty { found.append((readings, byUnit)) }
        }
        if found.contains(where: \.byUnit) { found = found.filter(\.byUnit) }
        return found.map { $0.readings.count == 1 ? .one(.number($0.readings[0])) : .either($0.readings.map(FormValue.number)) }
    }

    static let otherUnits: Set<String> = Set(unitGroups.joined()).union(["week", "weeks", "month", "months", "year", "years",
                                                                         "ago", "percent", "%", "times", "people", "pages"])

    /// What people write for a unit: `EUR` is also euro, euros and €.
    static func aliases(for unit: String?) -> Set<String> {
        var names: Set<String> = currencySigns
        guard let unit = unit?.lowercased(), !unit.isEmpty else { return names }
        names.formUnion([unit, unit + "s"])
        for group in unitGroups where group.contains(unit) { names.formUnion(group) }
        return names
    }

    static let unitGroups: [Set<String>] = [
        ["eur", "euro", "euros", "€"], ["usd", "dollar", "dollars", "$"], ["gbp", "pound", "pounds", "£"],
        ["chf", "franc", "francs"],
        ["km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"], ["mi", "mile", "miles"],
        ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"], ["h", "hr", "hrs", "hour", "hours"],
        ["min", "mins", "minute", "minutes"], ["day", "days"], ["night", "nights"],
    ]
}
