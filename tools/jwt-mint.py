#!/usr/bin/python3
"""Mints JWTs with PyJWT, an implementation independent of the relay's, for its tests and as an
example for operators (docs/tokens.md). Debian: python3-jwt, python3-cryptography.

  jwt-mint.py token --alg HS256|ES256|RS256 --key FILE [--kid KID] --claims JSON
      FILE: the HS256 secret (its bytes less one trailing line break) or a PEM private key.
  jwt-mint.py none --claims JSON
      An unsigned token (alg "none"), which the relay must refuse.
  jwt-mint.py hs256-with-file --file FILE --claims JSON
      HS256 with FILE's bytes as the secret, whatever they are (a public key's PEM: the
      algorithm-confusion attack, which PyJWT itself refuses to mint, so done by hand here).
  jwt-mint.py jwks [--kid KID --public FILE]...
      A JWKS of PEM public keys (EC P-256 or RSA), each with its kid and no alg.
"""
import argparse
import base64
import hashlib
import hmac
import json
import sys

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa


def secret_of(path):
    data = open(path, "rb").read()
    if data.endswith(b"\n"):
        data = data[:-1]
    if data.endswith(b"\r"):
        data = data[:-1]
    return data


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    token = sub.add_parser("token")
    token.add_argument("--alg", required=True, choices=["HS256", "ES256", "RS256"])
    token.add_argument("--key", required=True)
    token.add_argument("--kid")
    token.add_argument("--claims", required=True)
    none = sub.add_parser("none")
    none.add_argument("--claims", required=True)
    confused = sub.add_parser("hs256-with-file")
    confused.add_argument("--file", required=True)
    confused.add_argument("--claims", required=True)
    jwks = sub.add_parser("jwks")
    jwks.add_argument("--kid", action="append", default=[])
    jwks.add_argument("--public", action="append", default=[])
    args = parser.parse_args()

    if args.command == "token":
        claims = json.loads(args.claims)
        if args.alg == "HS256":
            key = secret_of(args.key)
        else:
            key = open(args.key, "rb").read()
        headers = {"kid": args.kid} if args.kid else None
        print(jwt.encode(claims, key, algorithm=args.alg, headers=headers))
    elif args.command == "none":
        print(jwt.encode(json.loads(args.claims), None, algorithm="none"))
    elif args.command == "hs256-with-file":
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = b64url(json.dumps(json.loads(args.claims)).encode())
        signing_input = f"{header}.{payload}".encode()
        secret = open(args.file, "rb").read()
        print(f"{header}.{payload}.{b64url(hmac.new(secret, signing_input, hashlib.sha256).digest())}")
    elif args.command == "jwks":
        if len(args.kid) != len(args.public):
            sys.exit("jwks: one --kid per --public")
        keys = []
        for kid, path in zip(args.kid, args.public):
            public = serialization.load_pem_public_key(open(path, "rb").read())
            if isinstance(public, ec.EllipticCurvePublicKey):
                jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(public))
            elif isinstance(public, rsa.RSAPublicKey):
                jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(public))
            else:
                sys.exit(f"jwks: {path} is neither an EC nor an RSA public key")
            jwk.pop("alg", None)
            jwk["kid"] = kid
            keys.append(jwk)
        print(json.dumps({"keys": keys}))


if __name__ == "__main__":
    main()
