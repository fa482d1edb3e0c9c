"""NATS decentralized (JWT) authentication for the creds_file tests: an
operator, accounts and users of our own, made with the nkeys package (Ed25519
keys in NATS's encoding) and signed here, so no nsc is needed.

    ident = Identities(directory)
    ident.server_conf()         the operator-mode lines of a server config
    ident.good_creds            a .creds file of a user of the known account
    ident.foreign_creds         a user signed by an account the server does not know
    ident.wrong_seed_creds      the good user's JWT with another user's seed

A JWT is three base64url parts, header.claims.signature, the signature an
Ed25519 one by the issuer's key over "header.claims"; a .creds file holds the
user's JWT and nkey seed between the standard markers."""
import base64
import hashlib
import json
import os
import time

import nkeys


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    """An nkey pair of one role (operator, account or user)."""

    def __init__(self, prefix):
        self.seed = nkeys.encode_seed(os.urandom(32), prefix)
        self.pair = nkeys.from_seed(bytearray(self.seed))
        self.public = self.pair.public_key.decode()

    def jwt(self, subject, name, nats):
        """A JWT this key issues about subject (a public key)."""
        header = _b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
        claims = {"iat": int(time.time()), "iss": self.public, "name": name, "sub": subject, "nats": nats}
        claims["jti"] = base64.b32encode(hashlib.sha256(json.dumps(claims, sort_keys=True).encode()).digest()).decode().rstrip("=")
        body = _b64(json.dumps(claims).encode())
        signature = _b64(self.pair.sign(("%s.%s" % (header, body)).encode()))
        return "%s.%s.%s" % (header, body, signature)


UNLIMITED = {"subs": -1, "data": -1, "payload": -1}
ACCOUNT_LIMITS = dict(UNLIMITED, imports=-1, exports=-1, wildcards=True, conn=-1, leaf=-1)


def operator_jwt(op):
    return op.jwt(op.public, "ripple-test-operator", {"type": "operator", "version": 2})


def account_jwt(op, acc, name):
    return op.jwt(acc.public, name, {"type": "account", "version": 2, "limits": ACCOUNT_LIMITS,
                                     "default_permissions": {"pub": {}, "sub": {}}})


def user_jwt(acc, user, name):
    return acc.jwt(user.public, name, dict(UNLIMITED, type="user", version=2, pub={}, sub={}))


def creds_text(jwt, seed):
    return ("-----BEGIN NATS USER JWT-----\n%s\n------END NATS USER JWT------\n\n"
            "************************* IMPORTANT *************************\n"
            "NKEY Seed printed below can be used to sign and prove identity.\n"
            "NKEYs are sensitive and should be treated as secrets.\n\n"
            "-----BEGIN USER NKEY SEED-----\n%s\n------END USER NKEY SEED------\n\n"
            "*************************************************************\n") % (jwt, seed.decode())


class Identities:
    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        self.operator = Key(nkeys.PREFIX_BYTE_OPERATOR)
        self.account = Key(nkeys.PREFIX_BYTE_ACCOUNT)
        self.system = Key(nkeys.PREFIX_BYTE_ACCOUNT)
        stranger = Key(nkeys.PREFIX_BYTE_ACCOUNT)  # signed by our operator, but not given to the server
        user, other = Key(nkeys.PREFIX_BYTE_USER), Key(nkeys.PREFIX_BYTE_USER)
        self.accounts = {self.account.public: account_jwt(self.operator, self.account, "app"),
                         self.system.public: account_jwt(self.operator, self.system, "SYS")}

        def write(name, text):
            path = os.path.join(directory, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o600)
            return path

        good = user_jwt(self.account, user, "alice")
        self.good_creds = write("good.creds", creds_text(good, user.seed))
        self.foreign_creds = write("foreign.creds", creds_text(user_jwt(stranger, user, "mallory"), user.seed))
        self.wrong_seed_creds = write("wrong-seed.creds", creds_text(good, other.seed))
        self.missing_creds = os.path.join(directory, "missing.creds")

    def server_conf(self):
        preload = "\n".join("    %s: %s" % kv for kv in self.accounts.items())
        return 'operator: %s\nsystem_account: %s\nresolver: MEMORY\nresolver_preload: {\n%s\n}\n' % (
            operator_jwt(self.operator), self.system.public, preload)
