import Foundation

// The section cache from the controller's side: removing cache files. (Reading a cache at a
// fetch, deciding whether it is still valid, and writing it when the controller goes away
// are the SQLite store's business.)

extension ResultsController {
    /// Removes the cache file named `name` (as given to a controller), or every cache file in
    /// the directory when `name` is nil. Call it before changing a cached controller's request.
    public static func deleteCache(named name: String?, in directory: URL? = nil) throws {
        try SectionCache.delete(named: name, directory: directory)
    }
}
