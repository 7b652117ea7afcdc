"""The part of a `swift-api-digester -dump-sdk -abi` dump that plugins' compiled code depends on.

Used by .ci/check-flowkit-api, whose header says why: FlowKit is not built with library evolution, so a
plugin bakes in the layout of the types it stores and builds on, the witness tables of the protocols it
conforms to and the vtable slots of the classes it calls and subclasses.
"""

# Generic containers whose elements live behind a reference: their element types do not change the layout.
BOXED = {"s:Sa", "s:SD", "s:Sh", "s:s15ContiguousArrayV"}


def members(node):
    """A dump node's declarations (its other children are types)."""
    return [child for child in node.get("children", []) if "declKind" in child]


def layout(abi_tree, api_tree):
    """The layout file: from the `-abi` dump, every public type (those in the API dump) and FlowKit's structs
    and enums stored inline in one, each with its stored properties and cases, its protocol requirements or
    its vtable entries (see ``ordered``), in a tree the digester compares with `-abi`."""
    public = set()

    def collect(node):
        for child in members(node):
            if child.get("kind") == "TypeDecl":
                public.add(child.get("usr"))
                collect(child)

    collect(api_tree["ABIRoot"])
    types, parents = {}, {}  # other modules' types that FlowKit extends have no layout of FlowKit's

    def index(node, parent):
        for child in members(node):
            if child.get("kind") == "TypeDecl" and not child.get("isExternal"):
                types[child["usr"]] = child
                parents[child["usr"]] = parent
                index(child, child["usr"])

    index(abi_tree["ABIRoot"], None)
    keep = set()
    pending = [usr for usr in types if usr in public]
    while pending:
        usr = pending.pop()
        if usr in keep:
            continue
        keep.add(usr)
        if parents[usr]:
            pending.append(parents[usr])
        for member in stored(types[usr]):
            pending += inline_types(member, types)

    def cut(node):
        result = {key: value for key, value in node.items() if key != "children"}
        children = []
        for member in members(node):
            if member.get("kind") == "TypeDecl":
                if member["usr"] in keep:
                    children.append(cut(member))
        if node.get("kind") == "TypeDecl":
            children += [strip_accessors(member) for member in stored(node)]
            children += ordered(node)
        result["children"] = children
        return result

    return {"ABIRoot": cut(abi_tree["ABIRoot"])}


def stored(node):
    """Stored properties and enum cases: the type's own layout."""
    return [member for member in members(node) if not member.get("static")
            and (member.get("hasStorage") or member.get("declKind") == "EnumElement")]


def ordered(node):
    """A protocol's requirements, or a class's vtable entries, numbered in declaration order.

    Without library evolution a caller reaches a class method through a vtable slot whose offset it was
    compiled with, and a subclass's own slots follow its superclass's: the members declared in a non-final
    class's body (not in extensions), unless final or convenience initializers.
    """
    if node.get("declKind") == "Protocol":
        entries = [member for member in members(node)
                   if member.get("protocolReq") or member.get("declKind") == "AssociatedType"]
    elif node.get("declKind") == "Class" and "Final" not in node.get("declAttributes", []):
        entries = [member for member in members(node)
                   if member.get("kind") != "TypeDecl" and not member.get("hasStorage")
                   and not member.get("isFromExtension")
                   and not {"Final", "Convenience"} & set(member.get("declAttributes", []))]
    else:
        return []
    return [dict(entry, fixedbinaryorder=position) for position, entry in enumerate(entries)]


def strip_accessors(member):
    return {key: value for key, value in member.items() if key != "accessors"}


def inline_types(member, types):
    """FlowKit's structs and enums whose values are stored inline in `member` (not behind a reference)."""
    found = []

    def walk(node):
        usr = node.get("usr")
        if node.get("kind") == "TypeFunc" or usr in BOXED:
            return
        if usr in types:
            if types[usr].get("declKind") in ("Struct", "Enum"):
                found.append(usr)
            return
        for child in node.get("children", []):
            walk(child)

    for child in member.get("children", []):
        walk(child)
    return found


def renamed_storage(baseline, current):
    """The stored members of types whose layout (position and type of each) is the same in both trees.

    The digester matches members by name, so renaming a private stored property reads as a removal and an
    addition; the layout, which is all this file is about, did not change.
    """

    def storage(tree):
        found = {}

        def walk(node, path):
            for member in members(node):
                if member.get("kind") == "TypeDecl":
                    inner = path + [member.get("printedName", member.get("name", ""))]
                    names = {f"{child['declKind']} {'.'.join(inner + [child.get('printedName', '')])}"
                             for child in stored(member)}
                    shape = sorted((child.get("fixedbinaryorder", -1), [kid.get("printedName") for kid in
                                                                         child.get("children", [])])
                                   for child in stored(member))
                    found[".".join(inner)] = (shape, names)
                    walk(member, inner)

        walk(tree["ABIRoot"], [])
        return found

    old, new = storage(baseline), storage(current)
    same = set()
    for path in old.keys() & new.keys():
        if old[path][0] == new[path][0]:
            same |= old[path][1] | new[path][1]
    return same


def member_roles(tree):
    """'Func Type.member()', as the digester names a member of the layout file, to what adding it changes."""
    roles = {}

    def walk(node, path):
        for member in members(node):
            name = member.get("printedName", member.get("name", ""))
            if member.get("kind") == "TypeDecl":
                walk(member, path + [name])
                continue
            owner, kind = ".".join(path), node.get("declKind", "").lower()
            if node.get("declKind") == "Protocol":
                role = f"a requirement of protocol {owner}, missing from the witness tables of plugins' conformances"
            elif member.get("hasStorage"):
                role = f"a stored property of {kind} {owner}, which changes its size and layout"
            elif member.get("declKind") == "EnumElement":
                role = f"a case of enum {owner}, which changes its layout"
            else:
                role = (f"a vtable slot of class {owner}, which moves the slots after it and its subclasses'; "
                        "mark it final or declare it in an extension to keep it out of the vtable")
            roles[f"{member['declKind']} {'.'.join(path + [name])}"] = role

    walk(tree["ABIRoot"], [])
    return roles
