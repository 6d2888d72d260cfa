#!/usr/bin/env python3
"""An independent reader and writer of Coffer vault formats 1, 2 and 3, written from
docs/vault-format.md alone.

It uses only Python's sqlite3, hashlib and unicodedata modules and the system libsodium
through ctypes. It prints every live item as JSON, the secret in base64, and the format version;
in version 3 also each item's owner and access list, the access policy and the audit log
(newest first). With --write it first sets the items of a JSON file (in the shape it prints) as
a writer does (section 6), migrating a version 1 or 2 vault (sections 7.1 and 7.2): a new item
gets the owner and access list the file gives it, an item that exists keeps its own (5.5).

    read_vault.py VAULT                 the passphrase is read from stdin
    read_vault.py VAULT --keyfile PATH  open a key-file slot instead
    read_vault.py VAULT --systemd-creds open a systemd-creds slot (section 4.5) with systemd-creds
    read_vault.py VAULT ... --write ITEMS.json
                                        set these items first (created and modified are now)
    read_vault.py VAULT ... --search NAME=VALUE ...
                                        only the items whose attributes include these: through
                                        the attribute index in versions 2 and 3, by opening every
                                        record in version 1 (section 5.4), each checked
"""
import base64
import ctypes
import ctypes.util
import hashlib
import json
import os
import sqlite3
import re
import struct
import subprocess
import sys
import time
import unicodedata

sodium = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
if sodium.sodium_init() < 0:
    sys.exit("libsodium failed to initialise")


def aead_open(box, key, ad):
    """Opens nonce(24) || ciphertext || tag(16); returns None if it does not authenticate."""
    if len(box) < 40:
        return None
    out = ctypes.create_string_buffer(len(box) - 40 or 1)
    out_len = ctypes.c_ulonglong(0)
    status = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
        out, ctypes.byref(out_len), None, box[24:], ctypes.c_ulonglong(len(box) - 24),
        ad, ctypes.c_ulonglong(len(ad)), box[:24], key)
    return out.raw[:out_len.value] if status == 0 else None


def aead_seal(plain, key, ad):
    """Section 3's sealed box: a random 24-byte nonce, then the ciphertext and its tag."""
    nonce = os.urandom(24)
    out = ctypes.create_string_buffer(len(plain) + 16)
    out_len = ctypes.c_ulonglong(0)
    sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
        out, ctypes.byref(out_len), plain, ctypes.c_ulonglong(len(plain)), ad, ctypes.c_ulonglong(len(ad)), None, nonce, key)
    return nonce + out.raw[:out_len.value]


def argon2id(passphrase, salt, opslimit, memlimit):
    out = ctypes.create_string_buffer(32)
    status = sodium.crypto_pwhash(
        out, ctypes.c_ulonglong(32), passphrase, ctypes.c_ulonglong(len(passphrase)), salt,
        ctypes.c_ulonglong(opslimit), ctypes.c_size_t(memlimit), ctypes.c_int(2))
    if status != 0:
        sys.exit("argon2id failed (out of memory)")
    return out.raw


def subkey(master, key_id, length):
    """crypto_kdf_derive_from_key, context "CofferV1", as plain BLAKE2b (section 3)."""
    return hashlib.blake2b(b"", key=master, digest_size=length,
                           salt=struct.pack("<Q", key_id) + bytes(8), person=b"CofferV1" + bytes(8)).digest()


def systemd_creds_kek(vault_id, slot_id, kdf, credential):
    """Section 4.5: systemd-creds decrypts the slot's credential under the slot's name."""
    prefix = "systemd-creds;tpm2-device="
    device = kdf[len(prefix):] if kdf.startswith(prefix) else None
    if kdf != "systemd-creds" and device is None:
        sys.exit("malformed systemd-creds slot")
    command = ["systemd-creds", "decrypt", f"--name=coffer-{vault_id.hex()}-{slot_id}", "--newline=no"]
    if device:
        command.append(f"--tpm2-device={device}")
    result = subprocess.run(command + ["-", "-"], input=credential, capture_output=True, timeout=30)
    return result.stdout if result.returncode == 0 and len(result.stdout) == 32 else None


def nfc(text):
    return unicodedata.normalize("NFC", text).encode("utf-8")


def blind_index(index_key, item_class, service_bytes, account_bytes):
    """Section 5.1, over the name bytes exactly as given."""
    message = (bytes([item_class]) + struct.pack(">I", len(service_bytes)) + service_bytes
               + struct.pack(">I", len(account_bytes)) + account_bytes)
    return hashlib.blake2b(message, key=index_key, digest_size=32).digest()


class Malformed(ValueError):
    """A plaintext that breaks a rule of section 5.3: an integrity failure of its item."""


LIMITS = {"name": 1024, "text": 4096, "secret": 1 << 20, "attribute_name": 256, "attributes": 64,
          "program": 8192, "allowed": 64, "audit_entry": 16384, "audit_name": 32}


def utf8(value, limit):
    if len(value) > limit:
        raise Malformed("field too long")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise Malformed("invalid UTF-8")


CLASSES = {1: "genericPassword", 2: "internetPassword", 3: "attributeItem"}


def fields(data, repeatable=()):
    """The tag/length/value fields of section 5.3's layout: tags strictly ascending, except the
    repeatable ones, which may follow themselves; nothing past the end."""
    offset, last = 0, None
    while offset < len(data):
        if len(data) - offset < 5:
            raise Malformed("truncated field header")
        tag, length = data[offset], struct.unpack(">I", data[offset + 1:offset + 5])[0]
        value = data[offset + 5:offset + 5 + length]
        if len(value) != length or not (last is None or tag > last or (tag == last and tag in repeatable)):
            raise Malformed("field out of order or past the end")
        offset, last = offset + 5 + length, tag
        yield tag, value


PROGRAM_TEXTS = {1: "executable", 4: "script", 7: "sandboxApp", 8: "unit"}
PROGRAM_DIGESTS = {2: "executableDigest", 5: "scriptDigest"}
PROGRAM_PINS = {3: ("executablePinned", "executableDigest"), 6: ("scriptPinned", "scriptDigest")}
FLATPAK_ID = re.compile(rb"flatpak:[A-Za-z0-9_.-]{1,255}")
SNAP_NAME = re.compile(rb"snap:[a-z0-9-]{1,40}")
SERVICE_UNIT = re.compile(rb"[A-Za-z0-9:_.\\@-]{1,255}")


def program_text_is_valid(tag, value):
    """Section 5.5's table: what each text field of a program may hold."""
    if tag == 1:
        return value.startswith(b"/") and b"\0" not in value
    if tag == 4:
        return b"\0" not in value and (value.startswith(b"/") or (value.startswith(b"module:") and len(value) > 7)
                                        or (value.startswith(b"class:") and len(value) > 6))
    if tag == 7:
        return bool(FLATPAK_ID.fullmatch(value) or SNAP_NAME.fullmatch(value))
    return bool(SERVICE_UNIT.fullmatch(value)) and value.endswith(b".service")


def parse_program(value):
    """Section 5.5: a program, every rule enforced. Paths are bytes (shown as UTF-8, with any
    other byte escaped); digests come out in hex."""
    if len(value) > LIMITS["program"]:
        raise Malformed("program too long")
    program = {}
    for tag, field_value in fields(value):
        if tag in PROGRAM_TEXTS:
            if not program_text_is_valid(tag, field_value):
                raise Malformed("bad program field")
            program[PROGRAM_TEXTS[tag]] = field_value.decode("utf-8", "surrogateescape")
        elif tag in PROGRAM_DIGESTS:
            if len(field_value) != 32 or (tag == 5 and "script" not in program):
                raise Malformed("bad digest")
            program[PROGRAM_DIGESTS[tag]] = field_value.hex()
        elif tag in PROGRAM_PINS:
            name, needs = PROGRAM_PINS[tag]
            if field_value or needs not in program:
                raise Malformed("bad pin")
            program[name] = True
        else:
            raise Malformed("unknown program tag")
    if "executable" not in program:
        raise Malformed("a program needs its executable")
    return program


def parse_item_id(value):
    """Section 8.2's item: section 5.1's index_input."""
    if len(value) < 9 or value[0] not in CLASSES:
        raise Malformed("bad item class")
    service_length = struct.unpack(">I", value[1:5])[0]
    if service_length > len(value) - 9:
        raise Malformed("item service past the end")
    service = value[5:5 + service_length]
    account_length = struct.unpack(">I", value[5 + service_length:9 + service_length])[0]
    account = value[9 + service_length:]
    if account_length != len(account) or (value[0] == 3 and account):
        raise Malformed("bad item account")
    return {"class": CLASSES[value[0]], "service": utf8(service, LIMITS["name"]), "account": utf8(account, LIMITS["name"])}


def audit_name(value):
    if not 1 <= len(value) <= LIMITS["audit_name"] or any(not (97 <= b <= 122 or 48 <= b <= 57 or b == 45) for b in value):
        raise Malformed("bad audit name")
    return value.decode("ascii")


def parse_audit_entry(plain):
    """Section 8.2: an audit entry, every rule enforced."""
    entry = {}
    for tag, value in fields(plain):
        if tag == 1:
            if len(value) != 8:
                raise Malformed("a time is 8 bytes")
            entry["time"] = struct.unpack(">q", value)[0]
        elif tag == 2:
            entry["program"] = parse_program(value)
        elif tag in (3, 4, 6):
            entry[{3: "frontDoor", 4: "action", 6: "decision"}[tag]] = audit_name(value)
        elif tag == 5:
            entry["item"] = parse_item_id(value)
        else:
            raise Malformed("unknown audit tag")
    if not {"time", "frontDoor", "action", "decision"} <= entry.keys():
        raise Malformed("audit entry lacks a required field")
    return entry


def parse_plaintext(plain, version):
    """Section 5.3: u8(class) then tag/length/value fields, every MUST enforced.

    Returns the item and the raw service and account bytes, for the row-key check."""
    if not plain or plain[0] not in ((1, 2) if version == 1 else (1, 2, 3)):
        raise Malformed("unknown class")
    item = {"class": CLASSES[plain[0]], "attributes": {}}
    names = {1: "service", 2: "account"}
    texts = {7: "label", 8: "comment", 0x10: "protocol", 0x12: "path", 0x13: "authenticationType"}
    if version >= 2:
        texts[9] = "contentType"
    dates = {4: "created", 5: "modified", 6: "expires"}
    raw = {}
    last_name, last_allowed = None, None
    for tag, value in fields(plain[1:], repeatable=(0x20, 0x31)):
        length = len(value)
        if tag in (0x10, 0x11, 0x12, 0x13) and plain[0] != 2:
            raise Malformed("internet field in a generic password")
        if tag in names:
            raw[tag] = value
            item[names[tag]] = utf8(value, LIMITS["name"])
        elif tag in texts:
            item[texts[tag]] = utf8(value, LIMITS["text"])
        elif tag in dates:
            if length != 8:
                raise Malformed("a date is 8 bytes")
            item[dates[tag]] = struct.unpack(">q", value)[0]
        elif tag == 3:
            if length > LIMITS["secret"]:
                raise Malformed("secret too long")
            item["secret"] = base64.b64encode(value).decode()
        elif tag == 0x11:
            if length != 2:
                raise Malformed("a port is 2 bytes")
            item["port"] = struct.unpack(">H", value)[0]
        elif tag == 0x20:
            if length < 4 or len(item["attributes"]) >= LIMITS["attributes"]:
                raise Malformed("bad custom attribute")
            name_length = struct.unpack(">I", value[:4])[0]
            if name_length > length - 4 or name_length > LIMITS["attribute_name"]:
                raise Malformed("attribute name runs past its field")
            name = value[4:4 + name_length]
            if last_name is not None and not last_name < name:
                raise Malformed("attribute names unsorted or repeated")
            last_name = name
            item["attributes"][utf8(name, LIMITS["attribute_name"])] = utf8(value[4 + name_length:], LIMITS["text"])
        elif tag == 0x30:  # section 7: a version 3 reader applies version 3's rules to every record
            item["owner"] = parse_program(value)
        elif tag == 0x31:
            if (last_allowed is not None and not last_allowed < value) or len(item.get("allowed", [])) >= LIMITS["allowed"]:
                raise Malformed("access list unsorted, repeated or too long")
            last_allowed = value
            item.setdefault("allowed", []).append(parse_program(value))
        else:
            raise Malformed("unknown tag")
    for required in ("service", "account", "secret", "created", "modified"):
        if required not in item:
            raise Malformed("missing " + required)
    if plain[0] == 3 and item["account"]:
        raise Malformed("an attribute item has no account")
    return item, raw[1], raw[2]


def attributes_of(item):
    """Section 5.4: the item's attributes, the class's names over custom ones, all in NFC
    whatever the record's bytes; a field that is present, even empty, is an attribute."""
    attributes = dict(item["attributes"])
    if item["class"] == "genericPassword":
        attributes.update(service=item["service"], username=item["account"])
    elif item["class"] == "internetPassword":
        attributes.update(server=item["service"], user=item["account"])
        for field_name, name in (("protocol", "protocol"), ("path", "object"), ("authenticationType", "authtype")):
            if field_name in item:
                attributes[name] = item[field_name]
        if "port" in item:
            attributes["port"] = str(item["port"])
    return {unicodedata.normalize("NFC", k): unicodedata.normalize("NFC", v) for k, v in attributes.items()}


def attribute_token(attribute_key, name, value):
    message = struct.pack(">I", len(nfc(name))) + nfc(name) + nfc(value)
    return hashlib.blake2b(message, key=attribute_key, digest_size=16).digest()


def field(tag, value):
    return bytes([tag]) + struct.pack(">I", len(value)) + value


def build_program(program):
    """Section 5.5: a program (in the shape parse_program prints) as its fields, in tag order."""
    encoded = b""
    for tag, key in ((1, "executable"), (2, "executableDigest"), (3, "executablePinned"), (4, "script"),
                     (5, "scriptDigest"), (6, "scriptPinned"), (7, "sandboxApp"), (8, "unit")):
        if key in program:
            value = program[key]
            encoded += field(tag, b"" if value is True else bytes.fromhex(value) if tag in PROGRAM_DIGESTS
                             else value.encode("utf-8", "surrogateescape"))
    return encoded


def build_plaintext(item, created, modified, owner=None, allowed=()):
    """Section 5.3: the item's fields in ascending tag order, text in NFC; then its owner and its
    access list (5.5), sorted by their bytes."""
    code = {v: k for k, v in CLASSES.items()}[item["class"]]
    plain = bytes([code]) + field(1, nfc(item["service"])) + field(2, nfc(item.get("account", "")))
    plain += field(3, base64.b64decode(item["secret"]))
    plain += field(4, struct.pack(">q", created)) + field(5, struct.pack(">q", modified))
    if "expires" in item:
        plain += field(6, struct.pack(">q", item["expires"]))
    for tag, key in ((7, "label"), (8, "comment"), (9, "contentType")):
        if key in item:
            plain += field(tag, nfc(item[key]))
    if code == 2:
        if "protocol" in item:
            plain += field(0x10, nfc(item["protocol"]))
        if "port" in item:
            plain += field(0x11, struct.pack(">H", item["port"]))
        for tag, key in ((0x12, "path"), (0x13, "authenticationType")):
            if key in item:
                plain += field(tag, nfc(item[key]))
    for name, value in sorted((nfc(k), nfc(v)) for k, v in item.get("attributes", {}).items()):
        plain += field(0x20, struct.pack(">I", len(name)) + name + value)
    if owner is not None:
        plain += field(0x30, build_program(owner))
    for program in sorted({build_program(p) for p in allowed}):
        plain += field(0x31, program)
    return code, plain


def index_rows(db, attribute_key, row_key, item):
    """Section 5.4: the item's index rows replace whatever rows its row key had."""
    db.execute("DELETE FROM attribute_index WHERE row_key = ?", (row_key,))
    for name, value in attributes_of(item).items():
        db.execute("INSERT OR IGNORE INTO attribute_index (token, row_key) VALUES (?, ?)",
                   (attribute_token(attribute_key, name, value), row_key))


def open_record(record, record_key, item_ad_prefix, row_key, index_key, version):
    """Sections 5.2 and 5.3: the item if the record passes every integrity check, else None."""
    plain = aead_open(record, record_key, item_ad_prefix + row_key) if len(record) <= 2 << 20 else None
    if plain is None:
        return None
    try:
        item, service, account = parse_plaintext(plain, version)
    except Malformed:
        return None
    return item if blind_index(index_key, plain[0], service, account) == row_key else None


def migrate_to_2(db, keys, item_ad_prefix):
    """Section 7.1: the index, with the rows of every record that passes every check."""
    db.execute("CREATE TABLE attribute_index (token BLOB NOT NULL, row_key BLOB NOT NULL, "
               "PRIMARY KEY (token, row_key)) WITHOUT ROWID")
    db.execute("CREATE INDEX attribute_index_by_row ON attribute_index (row_key)")
    for row_key, record in db.execute("SELECT row_key, record FROM items").fetchall():
        item = open_record(record, keys["record"], item_ad_prefix, row_key, keys["index"], 1)
        if item is not None:
            index_rows(db, keys["attribute"], row_key, item)
    db.execute("PRAGMA user_version = 2")


def migrate_to_3(db, keys, vault_id):
    """Section 7.2: the access tables, the policy open, an empty audit log."""
    db.execute("CREATE TABLE access_settings (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), policy BLOB NOT NULL)")
    db.execute("CREATE TABLE audit_log (sequence INTEGER PRIMARY KEY, entry BLOB NOT NULL)")
    policy = aead_seal(bytes([0]), keys["record"], b"coffer:policy\x00" + struct.pack(">I", 1) + vault_id)
    db.execute("INSERT INTO access_settings (singleton, policy) VALUES (1, ?)", (policy,))
    db.execute("PRAGMA user_version = 3")


def write(path, keys, key_check, vault_id, item_ad_prefix, items):
    """Section 6: one BEGIN IMMEDIATE transaction, synchronous FULL, secure_delete on."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA secure_delete = ON")
    db.execute("BEGIN IMMEDIATE")
    assert db.execute("SELECT key_check FROM vault").fetchone()[0] == key_check, "another process rotated the vault key"
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == 1:
        migrate_to_2(db, keys, item_ad_prefix)
    if version <= 2:
        migrate_to_3(db, keys, vault_id)
    now_ms = int(time.time() * 1000)
    for item in items:
        code = {v: k for k, v in CLASSES.items()}[item["class"]]
        row_key = blind_index(keys["index"], code, nfc(item["service"]), nfc(item.get("account", "")))
        created, owner, allowed = now_ms, item.get("owner"), item.get("allowed", [])
        old = db.execute("SELECT record FROM items WHERE row_key = ?", (row_key,)).fetchone()
        if old is not None:
            previous = open_record(old[0], keys["record"], item_ad_prefix, row_key, keys["index"], 3)
            if previous is not None and previous.get("expires", now_ms + 1) > now_ms:
                # Section 5.5: a live item keeps its owner and access list, whatever the file says.
                created, owner, allowed = previous["created"], previous.get("owner"), previous.get("allowed", [])
        _, plain = build_plaintext(item, created, now_ms, owner, allowed)
        record = aead_seal(plain, keys["record"], item_ad_prefix + row_key)
        db.execute("INSERT INTO items (row_key, record) VALUES (?, ?) ON CONFLICT (row_key) DO UPDATE SET record = excluded.record",
                   (row_key, record))
        written, _, _ = parse_plaintext(plain, 3)
        index_rows(db, keys["attribute"], row_key, written)
    db.execute("COMMIT")
    db.close()


def main():
    path = sys.argv[1]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("PRAGMA application_id").fetchone()[0] == 0x434F4652, "not a Coffer vault"
    version = db.execute("PRAGMA user_version").fetchone()[0]
    assert version in (1, 2, 3), "not format version 1, 2 or 3"
    if version >= 3:  # section 2: the one policy row, checked before any key is needed
        policies = db.execute("SELECT singleton, policy FROM access_settings").fetchall()
        if len(policies) != 1 or policies[0][0] != 1 or not isinstance(policies[0][1], bytes) or len(policies[0][1]) != 41:
            sys.exit("corrupt vault: the access policy is missing or damaged")
    search = dict(arg.split("=", 1) for arg in sys.argv[sys.argv.index("--search") + 1:]) if "--search" in sys.argv else None
    vault_id, key_check = db.execute("SELECT vault_id, key_check FROM vault").fetchone()

    if "--keyfile" in sys.argv:
        kind = "keyfile"
        key = open(sys.argv[sys.argv.index("--keyfile") + 1], "rb").read()
        assert len(key) == 32
    elif "--systemd-creds" in sys.argv:
        kind, key = "systemd-creds", None
    else:
        kind, key = "passphrase", nfc(sys.stdin.read().rstrip("\n"))

    slot_ad = b"coffer:slot\x00" + struct.pack(">I", 1) + vault_id + kind.encode()
    vault_key = None
    for slot_id, kdf, salt, ops, mem, wrapped in db.execute(
            "SELECT slot_id, kdf, salt, opslimit, memlimit, wrapped_key FROM key_slots WHERE kind = ? ORDER BY slot_id", (kind,)):
        if kind == "passphrase":
            kek = argon2id(key, salt, ops, mem)
        elif kind == "systemd-creds":
            kek = systemd_creds_kek(vault_id, slot_id, kdf, salt)
            if kek is None:
                continue
        else:
            kek = key
        vault_key = aead_open(wrapped, kek, slot_ad)
        if vault_key:
            break
    if not vault_key:
        sys.exit("wrong passphrase or key")
    record_key, index_key, attribute_key = subkey(vault_key, 1, 32), subkey(vault_key, 2, 32), subkey(vault_key, 4, 32)
    assert subkey(vault_key, 3, 16) == key_check, "key check mismatch"

    item_ad_prefix = b"coffer:item\x00" + struct.pack(">I", 1) + vault_id
    if "--write" in sys.argv:
        with open(sys.argv[sys.argv.index("--write") + 1]) as f:
            to_write = json.load(f)
        db.close()
        write(path, {"record": record_key, "index": index_key, "attribute": attribute_key}, key_check, vault_id, item_ad_prefix,
              to_write)
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        version = db.execute("PRAGMA user_version").fetchone()[0]

    now_ms = int(time.time() * 1000)
    items, unreadable = [], 0
    if search is None or version == 1:  # version 1 has no index: every record is opened
        rows = db.execute("SELECT row_key, record FROM items").fetchall()
    else:
        # Section 5.4: the row keys that carry every token, then their records alone.
        candidates = None
        for name, value in search.items():
            found = {row[0] for row in db.execute("SELECT row_key FROM attribute_index WHERE token = ?",
                                                   (attribute_token(attribute_key, name, value),))}
            candidates = found if candidates is None else candidates & found
        rows = [row for rk in sorted(candidates) for row in db.execute("SELECT row_key, record FROM items WHERE row_key = ?", (rk,))]
    for rk, record in rows:
        item = open_record(record, record_key, item_ad_prefix, rk, index_key, version)
        if item is None:
            unreadable += 1
            continue
        if search is not None and not all(attributes_of(item).get(nfc(k).decode()) == nfc(v).decode() for k, v in search.items()):
            continue  # index rows are not authenticated: the record has the last word
        if item.get("expires", now_ms + 1) > now_ms:
            items.append(item)
    items.sort(key=lambda i: (i["class"], i["service"], i["account"]))

    policy, audit, audit_unreadable = "open", [], 0  # section 7.2: a version 2 vault reads as open
    if version >= 3:
        policy_ad = b"coffer:policy\x00" + struct.pack(">I", 1) + vault_id
        plain = aead_open(db.execute("SELECT policy FROM access_settings").fetchone()[0], record_key, policy_ad)
        if plain is None or len(plain) != 1 or plain[0] > 2:
            sys.exit("corrupt vault: the access policy does not open")
        policy = ["open", "confirm", "strict"][plain[0]]
        audit_ad = b"coffer:audit\x00" + struct.pack(">I", 1) + vault_id
        for sequence, box in db.execute("SELECT sequence, entry FROM audit_log ORDER BY sequence DESC"):
            plain = aead_open(box, record_key, audit_ad + struct.pack(">Q", sequence)) if len(box) <= LIMITS["audit_entry"] else None
            try:
                if plain is None:
                    raise Malformed("does not authenticate")
                audit.append(dict(parse_audit_entry(plain), sequence=sequence))
            except Malformed:
                audit_unreadable += 1
    json.dump({"items": items, "unreadable": unreadable, "version": version, "policy": policy, "audit": audit,
               "auditUnreadable": audit_unreadable}, sys.stdout, ensure_ascii=False, sort_keys=True)


main()
