import Foundation

/// A small document library on disk: a booking confirmation in Markdown, a handbook with
/// nested headings, a plain text note, a source file and a two-page PDF. Line numbers matter:
/// the tests cite them.
public enum DocumentFixtures {
    public static let booking = """
        # Booking confirmation

        Booking reference: QX7P2L
        Traveller: Ann Lee

        ## Outbound
        Destination: Lisbon, Portugal
        Departure: 12 November 2025, 08:15 from Berlin BER

        ## Return
        Return: 15 November 2025, 18:40 from Lisbon LIS

        """

    public static let handbook = """
        # Staff handbook

        Welcome to the company. This handbook explains how we work.

        ## Travel

        ### Expenses
        Expense claims must be filed within 30 days of returning from a trip.
        Keep every receipt; a missing receipt needs a short note explaining why.

        ### Mileage
        Driving your own car is paid at 0.30 EUR per kilometre.

        ## Holidays
        Everyone has 28 days of paid holiday a year.

        """

    public static let note = """
        The wifi password at the office is kept by Bob.
        Printer jams: open the side door, pull the green lever.

        """

    public static let source = """
        import Foundation

        /// Rounds a mileage claim to whole cents.
        func mileage(kilometres: Int) -> Double {
            (Double(kilometres) * 0.30 * 100).rounded() / 100
        }

        """

    /// Writes the library into `directory`: `trips/booking.md`, `handbook.md`, `notes.txt`,
    /// `code/mileage.swift`, and `report.pdf` (two pages).
    public static func write(into directory: TemporaryDirectory) {
        directory.write("trips/booking.md", booking)
        directory.write("handbook.md", handbook)
        directory.write("notes.txt", note)
        directory.write("code/mileage.swift", source)
        _ = FileManager.default.createFile(atPath: directory.file("report.pdf"), contents: Data(pdf(pages: [
            ["Quarterly travel report", "Trips taken: 14"],
            ["Budget status", "The travel budget is 80 percent spent."],
        ])))
    }

    /// A minimal PDF with one line of Helvetica text per string, which `pdftotext` reads.
    public static func pdf(pages: [[String]]) -> [UInt8] {
        var objects: [String] = []
        let pageCount = pages.count
        let fontObject = 3 + 2 * pageCount
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pageCount).map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
        objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pageCount) >>")
        for (index, lines) in pages.enumerated() {
            let contentObject = 4 + 2 * index
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents \(contentObject) 0 R "
                + "/Resources << /Font << /F1 \(fontObject) 0 R >> >> >>")
            let text = "BT /F1 12 Tf 72 720 Td 16 TL " + lines.map { "(\($0)) Tj T*" }.joined(separator: " ") + " ET"
            objects.append("<< /Length \(text.utf8.count) >>\nstream\n\(text)\nendstream")
        }
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }

    /// A PNG of one pixel, as an image to attach or pipe.
    public static let png = [UInt8](Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!)

    /// The two pages of the report the attachment and pipe tests send.
    public static let reportPages = [["Quarterly travel report", "Trips taken: 14"],
                                     ["Budget status", "The travel budget is 80 percent spent."]]

    /// Whether `pdftotext` (poppler-utils) is on this machine.
    public static var hasPdftotext: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/pdftotext") }
    }
}
