import FoundationEssentials
import Glibc

/// MBROLA voices, which sound more natural than espeak-ng's own: espeak-ng turns the text into
/// phonemes and the `mbrola` program makes the sound from a recorded voice database. espeak-ng
/// ships a voice file for each (`voices/mb/mb-en1`, whose `mbrola en1 en1_phtrans` line names the
/// database); the program and the databases are packaged apart (Debian's `mbrola`, `mbrola-en1`,
/// outside its main section), so a voice can be used only where both are installed.
public enum MBROLA {
    /// The database a voice file names: the second word of its `mbrola` line.
    public static func databaseName(voiceFile path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.lineSlices() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 2, words[0] == "mbrola" { return String(words[1]) }
        }
        return nil
    }

    /// Where espeak-ng looks for the database `name`, in its order (LoadMbrolaTable in
    /// espeak-ng's synth_mbrola.c): its data folder's `mbrola/`, then in each XDG data folder
    /// (1.51 looks in /usr/share alone) `mbrola/NAME`, `mbrola/NAME/NAME`, `mbrola/voices/NAME`.
    public static func databasePaths(_ name: String, dataPath: String, environment: [String: String]) -> [String] {
        var folders = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        if !folders.contains("/usr/share") { folders.append("/usr/share") }
        return [dataPath + "/mbrola/" + name] + folders.flatMap { folder in
            ["\(folder)/mbrola/\(name)", "\(folder)/mbrola/\(name)/\(name)", "\(folder)/mbrola/voices/\(name)"]
        }
    }

    /// The database file of `name` espeak-ng would load, if one is installed.
    public static func database(_ name: String, dataPath: String, environment: [String: String]) -> String? {
        databasePaths(name, dataPath: dataPath, environment: environment).first { (FileWalk.stamp($0)?.size ?? 0) > 0 }
    }

    /// The `mbrola` program espeak-ng runs (it starts it by name, from PATH).
    public static func program(environment: [String: String]) -> String? {
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/mbrola" }.first { access($0, X_OK) == 0 }
    }

    /// The MBROLA voices of `all` that can speak here: the program is there and so is each
    /// one's database.
    public static func usable(_ all: [Espeak.Voice], dataPath: String,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> [Espeak.Voice] {
        guard program(environment: environment) != nil else { return [] }
        return all.filter { voice in
            voice.mbrola.map { database($0, dataPath: dataPath, environment: environment) != nil } ?? false
        }
    }

    /// What to install for a voice that is not usable: one line for an error message.
    public static func installHint(_ voice: Espeak.Voice) -> String {
        let database = voice.mbrola ?? "en1"
        return "install the mbrola program and its \(database) voice, e.g. sudo apt-get install mbrola mbrola-\(database) "
            + "(Debian has them outside its main section)"
    }
}
