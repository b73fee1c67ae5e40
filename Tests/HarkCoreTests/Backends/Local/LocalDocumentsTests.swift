import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The local session's documents: files and folders added, cut into passages with their lines
/// and headings, found by /ask (file and line checked), and read again when they change.
@Suite struct LocalDocumentsTests {
    static func hhmm(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
    }

    @Test func passagesKeepTheirLinesAndHeadings() {
        let chunks = Chunker().chunks(of: Array(DocumentFixtures.handbook.utf8), format: .markdown)
        #expect(chunks.map { "\($0.lineStart)-\($0.lineEnd) \($0.heading)" } == [
            "1-3 Staff handbook",
            "5-9 Staff handbook › Travel › Expenses",
            "11-12 Staff handbook › Travel › Mileage",
            "14-15 Staff handbook › Holidays",
        ])
        #expect(chunks[1].text.hasPrefix("## Travel\n\n### Expenses\nExpense claims"))
        // A heading inside a code fence is code, and a long paragraph is cut at its limit.
        var chunker = Chunker()
        chunker.limit = 60
        let fenced = "# Top\n```\n# not a heading\n```\n" + String(repeating: "a line of words\n", count: 12)
        let pieces = chunker.chunks(of: Array(fenced.utf8), format: .markdown)
        #expect(pieces.allSatisfy { $0.heading == "Top" })
        #expect(pieces.count >= 2)
        let pdf = Chunker().chunks(of: Array("page one\n\n\u{0C}page two\n\u{0C}".utf8), format: .pdf)
        #expect(pdf.map(\.heading) == ["page 1", "page 2"])
    }

    @Test func documentsAreAddedFoundByFileAndLineAndReadAgainWhenTheyChange() async throws {
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = TestHome()
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        await transcript.type("/docs add \(library.file("trips")) \(library.file("handbook.md")) \(library.file("notes.txt"))")
        await transcript.type("/docs")
        await transcript.type("/ask how long do I have to file expense claims?")
        await transcript.type("/ask when is the return flight")
        // The terminal has 100 columns: a longer snippet is cut at a space, indented as it began.
        #expect(Self.hhmm(transcript.text) == """
            > /docs add \(library.file("trips")) \(library.file("handbook.md")) \(library.file("notes.txt"))
            added 3 files (8 passages, 699 B)
            > /docs
            3 documents · 699 B · 8 passages · /ask QUESTION searches them
              handbook.md       373 B  4 passages  read HH:MM
              notes.txt         104 B  1 passage   read HH:MM
              trips/booking.md  222 B  3 passages  read HH:MM
            > /ask how long do I have to file expense claims?
            [1] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip. Keep every receipt; a missing receipt needs a short…
            > /ask when is the return flight
            [1] trips/booking.md:10-11  Booking confirmation › Return
                ## Return Return: 15 November 2025, HH:MM from Lisbon LIS
            [2] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip. Keep every receipt; a missing receipt needs a short…

            """)
        // The passages are rows of the history, with their lines.
        let rows = try workspace.store.database.query("""
            SELECT d.name, c.line_start, c.line_end, c.heading FROM local_chunks c JOIN local_documents d ON d.id = c.document_id
            WHERE d.name = 'trips/booking.md' ORDER BY c.line_start
            """)
        #expect(rows.map { "\($0["line_start"].int!)-\($0["line_end"].int!) \($0["heading"].string!)" }
            == ["1-4 Booking confirmation", "6-8 Booking confirmation › Outbound", "10-11 Booking confirmation › Return"])

        // A changed file is read again before the next question; a file gone is dropped; a
        // new file in an added folder is picked up by /docs.
        library.write("trips/booking.md", DocumentFixtures.booking + "\n## Hotel\nHotel: Casa Azul, Rua Augusta 12\n")
        let changed = await transcript.type("/ask which hotel")
        #expect(changed == """
            > /ask which hotel
            read 1 changed file again (4 passages, 265 B)
            [1] trips/booking.md:13-14  Booking confirmation › Hotel
                ## Hotel Hotel: Casa Azul, Rua Augusta 12

            """)
        try FileManager.default.removeItem(atPath: library.file("notes.txt"))
        library.write("trips/visa.txt", "No visa is needed for Portugal.\n")
        let listed = Self.hhmm(await transcript.type("/docs"))
        #expect(listed.hasPrefix("""
            > /docs
            added 1 file (1 passage, 32 B) · dropped notes.txt, gone from disk
            3 documents · 
            """))
        #expect(listed.contains("trips/visa.txt"))
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_chunks_fts WHERE local_chunks_fts MATCH 'wifi'").int == 0,
                "the dropped file's passages left the index")

        // Removing by file name, and by the folder (whose new files are then no longer picked up).
        #expect(await transcript.type("/docs rm handbook.md").hasSuffix("removed handbook.md from the library (the files stay where they are)\n"))
        #expect(await transcript.type("/docs rm trips").hasSuffix("removed 2 documents from the library (the files stay where they are)\n"))
        let missing = await transcript.type("/docs rm nothing.md")
        #expect(missing.hasSuffix("hark: no document called nothing.md; /docs lists them\n"), "\(missing)")
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_chunks").int == 0)
        #expect(await transcript.type("/docs").contains("no documents yet: /docs add PATH… adds files or folders"))
    }

    /// Above DocumentLibrary.checkAllBeforeAsk documents, /ask checks only the files its passages
    /// come from (a changed one is read again and the search run again); /docs checks them all.
    @Test func aLargeLibraryChecksTheFilesItCitesBeforeItCitesThem() async throws {
        let library = TemporaryDirectory("hark-docs")
        try FileManager.default.createDirectory(atPath: library.file("big"), withIntermediateDirectories: true)
        for number in 0..<DocumentLibrary.checkAllBeforeAsk {
            library.write("big/f\(number).txt", "filler \(number)\n")
        }
        library.write("big/hotel.md", "# Stay\nHotel: Casa Azul\n")
        let home = TestHome()
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let transcript = Transcript(try home.workspace())
        #expect(await transcript.type("/docs add \(library.file("big"))").contains("added 1001 files"))
        library.write("big/hotel.md", "# Stay\n\nBooked in March.\nHotel: Casa Azul\n")
        library.write("big/f7.txt", "filler 7, near the hotel\n")
        let asked = await transcript.type("/ask hotel")
        #expect(asked == """
            > /ask hotel
            read 1 changed file again (1 passage, 42 B)
            [1] big/hotel.md:1-4  Stay
                # Stay  Booked in March. Hotel: Casa Azul

            """, "\(asked)")
        let listed = await transcript.type("/docs")
        #expect(listed.contains("read 1 changed file again (1 passage, 25 B)"), "f7.txt, not cited: \(listed)")
    }

    @Test func notesAreSearchedAndNothingFoundSaysWhatToDo() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("the spare key is under the blue flowerpot")
        #expect(await transcript.type("/ask where is the spare key").contains("spare key"))
        let empty = await transcript.type("/ask quantum chromodynamics")
        #expect(empty == """
            > /ask quantum chromodynamics
            nothing in your documents or notes matches "quantum chromodynamics"; no documents yet: /docs add PATH… adds files or folders

            """)
    }

    @Test(.enabled(if: DocumentFixtures.hasPdftotext, "needs pdftotext; scripts/setup.sh --test installs poppler-utils"))
    func aPDFIsReadPageByPageAndSourceFilesToo() async throws {
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = TestHome()
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let transcript = Transcript(try home.workspace())
        let added = await transcript.type("/docs add \(library.file("report.pdf")) \(library.file("code"))")
        #expect(added.contains("added 2 files"))
        let answer = await transcript.type("/ask travel budget")
        #expect(answer.contains("[1] report.pdf:4-5  page 2"), "\(answer)")
        #expect(await transcript.type("/ask kilometres mileage").contains("[1] code/mileage.swift:1-6"))
        await transcript.type("/docs reindex")
        #expect(transcript.text.contains("> /docs reindex\nread 2 changed files again"))
    }

    @Test func aFormFieldFromDocsProposesTheValueFromTheBestPassage() async throws {
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = TestHome()
        home.writePrompt("forms/trip.json", """
            {"title": "Trip", "fields": [
              {"id": "destination", "label": "Destination", "question": "Where did you go?", "from_docs": true},
              {"id": "departed", "label": "Departure", "question": "On which day did you leave?", "type": "date",
               "max": "today", "from_docs": true},
              {"id": "returned", "label": "Return", "question": "On which day did you come back?", "type": "date",
               "from_docs": true}
            ]}
            """)
        let clock = TestClock()
        let transcript = Transcript(try home.workspace(clock: clock.clock))
        await transcript.type("/docs add \(library.file("trips"))")
        for line in ["/form trip", "yes", "no, the 11th of November 2025", "yes"] { await transcript.type(line) }
        #expect(transcript.text.hasSuffix("""
            > /form trip
            Trip
            3 questions. Say help at any time to see what else you can say.
            1/3 Destination: Where did you go?
            (optional: skip leaves it out)
            From your documents (trips/booking.md:7): Lisbon, Portugal. Say yes to take it, or give your own answer.
            > yes
            Destination: Lisbon, Portugal.
            2/3 Departure: On which day did you leave?
            (a date such as 2026-01-01, today or yesterday, not after today; optional: skip leaves it out)
            From your documents (trips/booking.md:8): 2025-11-12. Say yes to take it, or give your own answer.
            > no, the 11th of November 2025
            Noted Departure: 2025-11-11.
            3/3 Return: On which day did you come back?
            (a date such as 2026-01-01, today or yesterday; optional: skip leaves it out)
            From your documents (trips/booking.md:11): 2025-11-15. Say yes to take it, or give your own answer.
            > yes
            Return: 2025-11-15.
            Please check your answers:
              Destination  Lisbon, Portugal
              Departure    2025-11-11
              Return       2025-11-15
            Say yes to finish, change FIELD to correct an answer, or cancel.

            """.replacingOccurrences(of: "2026-01-01", with: FormDate.local(clock.now).description)))
    }
}
