import RelayCore
import RelayWebFiles

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The files of `Web/`, by name, read on first use and kept in memory.
struct WebFiles: Sendable {
  struct File: Sendable {
    var contentType: String
    var bytes: [UInt8]
  }

  let files: [String: File]
  let directory: String?

  static let shared = WebFiles.load()

  static let missing = HTTPResponse(
    status: 503,
    body: "the web pages' files were not found next to the executable or in the source tree\n")

  static let contentTypes = [
    "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
  ]

  /// SwiftPM copies `Sources/RelayWebFiles/Web` next to the built products (`.build/debug`,
  /// `.build/release`); a binary run from elsewhere falls back to the source tree it was
  /// built from.
  static func candidates() -> [String] {
    var dirs: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      dirs.append(directory(of: exe) + "/" + String(cString: tr_web_files_directory()))
    }
    // This file is Sources/RelayServer/HTTP/WebFiles.swift.
    dirs.append(directory(of: directory(of: directory(of: #filePath))) + "/RelayWebFiles/Web")
    return dirs
  }

  /// The path without its last component.
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func load() -> WebFiles {
    let fm = FileManager.default
    for dir in candidates() {
      guard let names = try? fm.contentsOfDirectory(atPath: dir), names.contains("index.html")
      else { continue }
      var files: [String: File] = [:]
      for name in names {
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
        guard let type = contentTypes[ext], let data = fm.contents(atPath: dir + "/" + name) else {
          continue
        }
        files[name] = File(contentType: type, bytes: Array(data))
      }
      return WebFiles(files: files, directory: dir)
    }
    return WebFiles(files: [:], directory: nil)
  }
}
