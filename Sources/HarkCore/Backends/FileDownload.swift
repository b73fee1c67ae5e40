import FoundationEssentials
import Glibc

/// A file saved from a server (a Nyla workspace file, a Jenkins artifact): where it goes, and
/// its bytes streamed into a temporary file beside it that is renamed once whole, so an
/// interrupted download never leaves a truncated file under the real name.
enum FileDownload {
    /// `given` as typed (a file, or a folder to put it in), else the current folder under the
    /// server's name made safe; without `given`, an existing file is not overwritten.
    static func destination(_ given: String?, serverName: String, retryHint: String) throws -> String {
        let safeName = safeFileName(serverName)
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
            throw HarkError.usage("\(destination) exists; give a PATH: \(retryHint)")
        }
        return destination
    }

    /// Writes the rest of a response's body to `destination`; returns the bytes written.
    static func save(_ body: HTTPStream.AsyncIterator, to destination: String) async throws -> Int {
        let temporary = destination + ".part-\(getpid())"
        guard let handle = PosixFile(writingAtPath: temporary) else {
            throw HarkError.io("cannot write \(destination); check the folder")
        }
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
        guard rename(temporary, destination) == 0 else {
            unlink(temporary)
            throw HarkError.io("cannot write \(destination): \(String(cString: strerror(errno)))")
        }
        return written
    }

    /// A server's file name made safe to create here: no folders, no hidden or empty names.
    static func safeFileName(_ name: String) -> String {
        let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        let trimmed = cleaned.drop { $0 == "." }
        return trimmed.isEmpty ? "download" : String(trimmed)
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(cFormat: "%.1f KB", Double(bytes) / 1024) }
        return String(cFormat: "%.1f MB", Double(bytes) / 1024 / 1024)
    }
}
