/// A form field's value proposed from the user's documents (`"from_docs": true`): the passage
/// that best matches the field's label and question is found, and in it the line that names
/// the field (`Departure: 12 November 2025, 08:15`) is read by the same rules as an answer.
/// The value is only proposed: the user says yes, or answers themselves.
struct FormDocumentReader {
    let search: PassageSearch
    let today: FormDate

    func proposal(for field: FormField, template: FormTemplate) throws -> FormProgress.Proposal? {
        let passages = try search.keywordPassages(field.label + " " + field.question, limit: 5).filter { $0.chunkID != nil }
        let texts = try search.texts(passages.compactMap(\.chunkID))
        for passage in passages {
            guard let id = passage.chunkID, let text = texts[id] else { continue }
            if let (value, line) = read(text, field: field) {
                return FormProgress.Proposal(field: field.id, value: value, source: "\(passage.source):\(passage.lineStart + line)")
            }
        }
        return nil
    }

    /// The value in a passage, and its line within the passage (0 for the first).
    func read(_ text: String, field: FormField) -> (FormValue, Int)? {
        let names = Set(AnswerWords(field.label + " " + field.id.replacingOccurrences(of: "_", with: " ")).words
            .filter { $0.count >= 3 && !SeveralAnswers.fillers.contains($0) })
        for (index, line) in text.lineSlices().enumerated() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let label = AnswerWords(String(line[..<colon])).words
            guard !label.isEmpty, label.count <= 4, label.contains(where: { word in
                names.contains(word) || names.contains(where: { word.hasPrefix($0) || $0.hasPrefix(word) && word.count >= 4 })
            }) else { continue }
            let rest = String(line[line.index(after: colon)...]).trimmed
            guard !rest.isEmpty else { continue }
            if case .value(let value, _) = AnswerReader.read(rest, for: field, today: today) { return (value, index) }
        }
        return nil
    }
}
