"""The build's plan: what happens to each path of the tree, decided before any content
is read. A path is either *unread* (an inventory entry written as is: excluded by the
policy or for a secret in its name, an unindexable name, a submodule, a symlink) or one of
three actions: ``copy`` (its rows come with the previous index), ``store`` (read back from
the chunk store) or ``read`` (its blob is chunked)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from codegold.errors import CodeIndexError
from codegold.index.build.naming import display_name, name_problem
from codegold.index.build.redaction import path_secret
from codegold.index.categories import categorize
from codegold.index.chunkstore import ChunkStore
from codegold.index.gitsnap import MODE_GITLINK, MODE_SYMLINK, TreeEntry
from codegold.index.policy import PathPolicy
from codegold.index.records import InventoryEntry
from codegold.model.languages import language_of


@dataclass
class Plan:
    """``actions`` in tree order, one of ``read``, ``copy`` or ``store`` each; ``unread``
    the paths decided without reading their content."""

    actions: list[tuple[TreeEntry, str]] = field(default_factory=list)
    unread: list[InventoryEntry] = field(default_factory=list)

    def paths(self, action: str) -> list[str]:
        return [item.path for item, which in self.actions if which == action]

    def items(self, action: str) -> list[TreeEntry]:
        return [item for item, which in self.actions if which == action]


def entry_without_content(item: TreeEntry, fate: str, reason: str) -> InventoryEntry:
    language = language_of(item.path)
    category = categorize(item.path, b"", language)
    return InventoryEntry(path=item.path, blob_sha=item.sha, size=item.size, language=language,
                          category=category, fate=fate, reason=reason, chunker=None, chunks=0)


MISSING_BLOB_REASON = ("policy: blob missing from this partial clone (skip_missing_blobs): "
                       "not indexed")


# A regular file's modes: a kept row was made from a blob of one of these.
_REGULAR = frozenset({"100644", "100755"})


def kept_unchecked(item: TreeEntry, unchanged: Mapping[str, str]) -> bool:
    """Whether ``item`` is a regular file with the blob ``unchanged`` (the reusable files
    of an index built under the same path policy) holds for its path: its rows are
    copied without a check (or a size) of its own."""
    return unchanged.get(item.path) == item.sha and item.mode in _REGULAR and \
        item.object_type == "blob"


def plan_build(entries: list[TreeEntry], policy: PathPolicy, previous: dict[str, str] | None,
               store: ChunkStore | None, missing: frozenset[str] = frozenset(),
               repo: str = "", same_policy: bool = False) -> Plan:
    """Decide each entry of the tree: ``previous`` maps reusable paths to their blob sha,
    ``store`` is the chunk store consulted (None: none), ``missing`` the blobs the clone
    at ``repo`` lacks (left out under ``policy.skip_missing_blobs``, else an error that
    names them). ``same_policy``: ``previous`` was built under this policy, so a regular
    file it holds with the same blob is copied without the policy's checks (its name,
    path and size, hence their verdicts, are the ones that let it in then)."""
    plan = Plan()
    lacking: list[TreeEntry] = []
    taken = {item.path for item in entries}
    unchanged = previous if same_policy and previous else None
    for item in entries:
        if unchanged is not None and kept_unchecked(item, unchanged):
            plan.actions.append((item, "copy"))
            continue
        problem = name_problem(item.path)
        hidden = path_secret(item.path) if policy.secrets else None
        if hidden and problem is None:
            shown, reason = hidden
            if shown not in taken:
                taken.add(shown)
                plan.unread.append(entry_without_content(
                    TreeEntry(shown, item.mode, item.object_type, item.sha, item.size),
                    "excluded", reason))
        elif problem is not None:
            shown = display_name(item.path)
            if shown not in taken:  # an escaped name never shadows a real path
                taken.add(shown)
                plan.unread.append(entry_without_content(
                    TreeEntry(shown, item.mode, item.object_type, item.sha, item.size),
                    "skipped", f"file name {problem}: not indexed (shown escaped)"))
        elif item.mode == MODE_GITLINK:
            plan.unread.append(entry_without_content(
                item, "skipped", f"submodule (commit {item.sha[:12]}): not followed"))
        elif item.mode == MODE_SYMLINK:
            plan.unread.append(entry_without_content(item, "skipped", "symlink: never followed"))
        elif item.object_type != "blob":
            plan.unread.append(entry_without_content(item, "skipped",
                                                     f"{item.object_type} entry"))
        else:
            exclusion = policy.exclusion(item.path, item.size)
            if exclusion is not None:
                plan.unread.append(entry_without_content(item, "excluded", exclusion))
                continue
            reusable = previous is not None and previous.get(item.path) == item.sha
            if item.sha in missing and not reusable:
                if policy.skip_missing_blobs:
                    plan.unread.append(entry_without_content(item, "excluded",
                                                             MISSING_BLOB_REASON))
                else:
                    lacking.append(item)
                continue
            if reusable:
                plan.actions.append((item, "copy"))
            elif store is not None and store.has(item.path, item.sha):
                plan.actions.append((item, "store"))
            else:
                plan.actions.append((item, "read"))
    if lacking:
        raise _missing_error(lacking, repo)
    return plan


def _missing_error(lacking: list[TreeEntry], repo: str) -> CodeIndexError:
    shown = ", ".join(f"{item.path} (blob {item.sha[:12]})" for item in lacking[:3])
    more = f" and {len(lacking) - 3} more" if len(lacking) > 3 else ""
    return CodeIndexError(
        f"{len(lacking)} file(s) of the revision are not in the clone at {repo}: {shown}"
        f"{more}; it is a partial clone (made with a blob filter). Fetch them (git -C {repo} "
        "fetch origin, or a full clone), or leave them out with {skip_missing_blobs} (or "
        "skip_missing_blobs: true in the path policy)",
        settings=("skip_missing_blobs",))
