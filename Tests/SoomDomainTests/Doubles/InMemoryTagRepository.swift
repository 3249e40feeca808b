import Foundation
import SoomDomain
import Synchronization

/// `TagRepository` in memory: counts set directly by the test, favourites kept per account.
final class InMemoryTagRepository: TagRepository {
    struct Storage {
        /// key → (first spelling, usage count)
        var tags: [String: (name: String, count: Int)] = [:]
        /// account → favourite keys and names, in the order added
        var favorites: [UUID: [(key: String, name: String)]] = [:]
        var rankedReads = 0
    }

    let storage = Mutex(Storage())

    func use(_ name: String, count: Int) {
        self.storage.withLock { $0.tags[Tag.fold(name)] = (name, count) }
    }

    var rankedReads: Int { self.storage.withLock { $0.rankedReads } }

    private func inUse(_ storage: Storage) -> [TagUsage] {
        storage.tags.filter { $0.value.count > 0 }
            .sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
            .map { TagUsage(name: $0.value.name, usageCount: $0.value.count) }
    }

    func ranked(limit: Int) async throws -> [TagUsage] {
        self.storage.withLock { storage in
            storage.rankedReads += 1
            return Array(self.inUse(storage).prefix(limit))
        }
    }

    func search(prefix: String, limit: Int) async throws -> [TagUsage] {
        self.storage.withLock { Array(self.inUse($0).filter { Tag.fold($0.name).hasPrefix(prefix) }.prefix(limit)) }
    }

    func detail(of tag: Tag, viewer: UUID?) async throws -> TagDetail {
        self.storage.withLock { storage in
            let stored = storage.tags[tag.key]
            let favorite = viewer.map { storage.favorites[$0, default: []].contains { $0.key == tag.key } } ?? false
            return TagDetail(name: stored?.name ?? tag.name, usageCount: stored?.count ?? 0, isFavorite: favorite)
        }
    }

    func setFavorite(_ favorite: Bool, tag: Tag, account: UUID, limit: Int) async throws -> FavoriteOutcome {
        self.storage.withLock { storage in
            var list = storage.favorites[account, default: []]
            defer { storage.favorites[account] = list }
            if !favorite {
                list.removeAll { $0.key == tag.key }
                return .done(favorite: false)
            }
            if list.contains(where: { $0.key == tag.key }) { return .done(favorite: true) }
            guard list.count < limit else { return .limitReached }
            list.append((tag.key, tag.name))
            return .done(favorite: true)
        }
    }

    func favorites(of account: UUID) async throws -> [TagUsage] {
        self.storage.withLock { storage in
            storage.favorites[account, default: []].map { favorite in
                let stored = storage.tags[favorite.key]
                return TagUsage(name: stored?.name ?? favorite.name, usageCount: stored?.count ?? 0)
            }
        }
    }
}
