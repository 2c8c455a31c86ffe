import Foundation

// The section cache of a controller (persistent tracking): writing it when the controller goes
// away. (Reading it, and whether it is still valid, is the store's business.)

extension ResultsController {
    /// Writes the cache file when the index moved past the one on disk (persistent tracking only).
    func saveCache() throws {
        guard let cache, let position = appliedPosition, position != savedPosition, !recovery.needsRefetch else { return }
        var stamp = cache.stamp
        stamp.position = position
        try cache.file.save(result.index, stamp: stamp)
        savedPosition = position
    }

    /// Removes the cache file named `name` (as given to a controller), or every cache file in
    /// the directory when `name` is nil. Call it before changing a cached controller's request.
    public static func deleteCache(named name: String?, in directory: URL? = nil) throws {
        try SectionCache.delete(named: name, directory: directory)
    }
}
