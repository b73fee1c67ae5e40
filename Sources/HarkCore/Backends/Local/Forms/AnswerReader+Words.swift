/// A choice named inside a sentence: `it happens in the mobile one, I think` is mobile app. A
/// word only one choice has names it; a word several share (`the app`) names all of them,
/// and several named are asked back. `not the web one` leaves web app out. A choice's
/// synonyms (`on my phone` for mobile app) name it as its own words do.
enum ChoiceReader {
    static let negations: Set<String> = ["not", "no", "never", "isn't", "wasn't", "neither", "nor", "without", "except", "don't", "dont",
                                           "doesn't", "didn't"]

    static func candidates(in text: String, choices: [String], synonyms: [String: [String]] = [:]) -> [AnswerReader.Candidate] {
        let answer = AnswerWords(text).words
        let choiceWords = choices.map { AnswerWords($0).words }
        func mentions(_ word: String) -> [Int] {
            answer.indices.filter { index in
                let said = answer[index]
                return said == word || said == word + "s" || (said.count >= 4 && word.hasPrefix(said) && word.count - said.count <= 3)
            }
        }
        func negated(_ index: Int) -> Bool {
            (max(0, index - 3)..<index).contains { negations.contains(answer[$0]) }
        }
        var named: [Int] = []
        var shared: [Int] = []
        var excluded: Set<Int> = []
        for (choice, words) in choiceWords.enumerated() {
            for word in words {
                let owners = choiceWords.indices.filter { choiceWords[$0].contains(word) }
                for index in mentions(word) {
                    if negated(index) {
                        if owners.count == 1 { excluded.insert(choice) }
                    } else if owners.count == 1 {
                        named.append(choice)
                    } else {
                        shared.append(choice)
                    }
                }
            }
        }
        for (choice, name) in choices.enumerated() {
            for phrase in (synonyms[name] ?? []).map({ AnswerWords($0).words }) where !phrase.isEmpty {
                for index in answer.indices where said(phrase, at: index, in: answer) {
                    if negated(index) { excluded.insert(choice) } else { named.append(choice) }
                }
            }
        }
        var picked = unique(named).filter { !excluded.contains($0) }
        if picked.isEmpty { picked = unique(shared).filter { !excluded.contains($0) } }
        return picked.isEmpty ? [] : [.either(picked.map { .text(choices[$0]) })]
    }

    static func unique(_ indices: [Int]) -> [Int] { Array(Set(indices)).sorted() }

    /// Whether the answer's words at `index` are the phrase, its last word perhaps plural.
    static func said(_ phrase: [String], at index: Int, in answer: [String]) -> Bool {
        guard index + phrase.count <= answer.count else { return false }
        for (offset, word) in phrase.enumerated() {
            let heard = answer[index + offset]
            guard heard == word || (offset == phrase.count - 1 && heard == word + "s") else { return false }
        }
        return true
    }
}

/// Yes or no in a sentence: `yep, every time` is yes, `not really` no. Phrases are matched
/// longest first, so `I don't think so` is a no, not a no and a yes. Both at once, or a
/// hedge (`maybe`, `not sure`), is not an answer.
enum YesNoReader {
    static let yes: [[String]] = phrases("yes", "y", "yeah", "yea", "yep", "yup", "ya", "aye", "sure", "of course", "definitely",
                                         "absolutely", "certainly", "correct", "true", "indeed", "always", "every time",
                                         "each time", "i do", "i did", "i have", "it does", "it did", "i think so", "ok", "okay",
                                         "affirmative", "yes please", "that's right", "all of them")
    static let no: [[String]] = phrases("no", "n", "nope", "nah", "not really", "not at all", "never", "false", "negative",
                                        "i don't", "i do not", "i didn't", "i did not", "i haven't", "i have not", "it doesn't",
                                        "it does not", "it didn't", "don't think so", "i don't think so", "none", "not", "no way",
                                        "not one", "dont", "didn't", "doesn't", "haven't", "hasn't", "wasn't", "isn't")
    static let hedges: [[String]] = phrases("maybe", "perhaps", "not sure", "unsure", "don't know", "dont know", "no idea",
                                            "sometimes", "probably", "possibly", "might", "kind of", "sort of", "depends",
                                            "some of them", "some", "partly", "half")

    static func phrases(_ texts: String...) -> [[String]] { texts.map { AnswerWords($0).words } }

    static func candidates(in text: String) -> [AnswerReader.Candidate] {
        let words = AnswerWords(text)
        var saidYes = false
        var saidNo = false
        var index = 0
        while index < words.words.count {
            var best: (length: Int, kind: Int)?
            for (kind, table) in [hedges, no, yes].enumerated() {
                for phrase in table where words.has(phrase, at: index) && phrase.count > (best?.length ?? 0) {
                    best = (phrase.count, kind)
                }
            }
            guard let best else {
                index += 1
                continue
            }
            switch best.kind {
            case 0: return []
            case 1: saidNo = true
            default: saidYes = true
            }
            index += best.length
        }
        switch (saidYes, saidNo) {
        case (true, false): return [.one(.bool(true))]
        case (false, true): return [.one(.bool(false))]
        case (true, true): return [.either([.bool(true), .bool(false)])]
        default: return []
        }
    }
}
