import FoundationEssentials
import Glibc

/// Where `/download` saves a file a server named: the PATH given (a folder gets the file's name
/// inside it), else the current folder, never over an existing file there. The server's name
/// is made safe first: no folders, no hidden or empty names.
public enum DownloadTarget {
    public static func path(for name: String, given: String?, retry command: String) throws -> String {
        let safeName = safeFileName(name)
        if let given {
            var destination = given.expandingTildeInPath
            var isDirectory = false
            if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory {
                destination += "/" + safeName
            }
            return destination
        }
        let destination = FileManager.default.currentDirectoryPath + "/" + safeName
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw HarkError.usage("\(destination) exists; give a PATH: \(command) PATH")
        }
        return destination
    }

    public static func safeFileName(_ name: String) -> String {
        let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        let trimmed = cleaned.drop { $0 == "." }
        return trimmed.isEmpty ? "download" : String(trimmed)
    }

    /// Writes the bytes to a temporary file beside `destination`, then renames it over.
    public static func write(_ bytes: [UInt8], to destination: String) throws {
        let (temporary, handle) = try open(beside: destination)
        do { try handle.write(bytes) } catch {
            handle.close()
            unlink(temporary)
            throw error
        }
        handle.close()
        try rename(temporary, over: destination)
    }

    /// Streams the rest of a response's body into a temporary file beside `destination`,
    /// renamed over it once whole, so an interrupted download never leaves a truncated file
    /// under the real name. Returns the bytes written.
    static func save(_ body: HTTPStream.AsyncIterator, to destination: String) async throws -> Int {
        let (temporary, handle) = try open(beside: destination)
        var written = 0
        var body = body
        do {
            while let event = try await body.next() {
                guard case .body(let bytes) = event else { continue }
                try handle.write(bytes)
                written += bytes.count
            }
            handle.close()
        } catch {
            handle.close()
            unlink(temporary)
            throw error
        }
        try rename(temporary, over: destination)
        return written
    }

    private static func open(beside destination: String) throws -> (String, PosixFile) {
        let temporary = destination + ".part-\(getpid())"
        guard let handle = PosixFile(writingAtPath: temporary) else {
            throw HarkError.io("cannot write \(destination); check the folder")
        }
        return (temporary, handle)
    }

    private static func rename(_ temporary: String, over destination: String) throws {
        guard Glibc.rename(temporary, destination) == 0 else {
            unlink(temporary)
            throw HarkError.io("cannot write \(destination): \(String(cString: strerror(errno)))")
        }
    }
}
