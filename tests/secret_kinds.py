"""The secret-kinds table of issue 11: one realistic fake per kind, as a user would paste it.

Each :class:`Fake` has the sentence a user types, the ``[REDACTED:<kind>]`` it must become,
and the ``marker``: the part of the secret that must appear nowhere afterwards (history,
memory files, git objects, the Dream prompt, stdout). All values are invented; none is live.

The first 16 kinds were already caught before issue 11; the last 11 are the ones its
fault-injection run found leaking. ``FALSE_POSITIVES`` is text that must stay as it is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fake:
    name: str  # the kind as the issue counts it
    kind: str  # the [REDACTED:<kind>] it becomes
    text: str  # what the user says
    marker: str  # must not survive anywhere


_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUqs3lQmjVXMTfKXlT3\n"
    "Zb9Qk1nT7xPj2vL8mW4cR6sY0dF3gH5jK7lN9pQ==\n-----END RSA PRIVATE KEY-----"
)
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbmEtNDIiLCJyb2xlIjoiYWRtaW4ifQ"
    ".Qm7xK2pL9vR4tW8zB3nC6dF1hJ5kM0sA"
)

FAKES: tuple[Fake, ...] = (
    # caught before issue 11
    Fake("openai", "openai-key", "my OpenAI key is sk-proj-Tq3vX9bL2mN7pR4sW8yZ1cF6hJ0kD5gA ok",
         "Tq3vX9bL2mN7pR4sW8yZ1cF6hJ0kD5gA"),
    Fake("anthropic", "anthropic-key", "use sk-ant-api03-Pw8Xc2Vb6Nm4Lk9Jh3Gf7Ds1Aq5Zr0Ty-QQQQ",
         "Pw8Xc2Vb6Nm4Lk9Jh3Gf7Ds1Aq5Zr0Ty"),
    Fake("aws-access-key-id", "aws-key", "the access key id is AKIAQ3EXAMPLE7JH2PKD",
         "AKIAQ3EXAMPLE7JH2PKD"),
    Fake("aws-secret-labelled", "aws-key",
         "aws_secret_access_key = Hq7Rt2Lp9Vx4Kz8Wm3Nb6Cd1Fg5Js0Ae+Yu/Io3P",
         "Hq7Rt2Lp9Vx4Kz8Wm3Nb6Cd1Fg5Js0Ae+Yu/Io3P"),
    Fake("github-classic", "github-token", "deploy token ghp_R4nD0mT0k3nV4lu3Xy7Zq2Wp9Lm5Kj8Hg3F",
         "R4nD0mT0k3nV4lu3Xy7Zq2Wp9Lm5Kj8Hg3F"),
    Fake("github-fine-grained", "github-token",
         "token github_pat_11AB2CD3E0q8Wx7Zr5Tp_Lm4Nk9Jh2Gf6Ds1Aq3Zr8Ty5Uv0Wx",
         "11AB2CD3E0q8Wx7Zr5Tp_Lm4Nk9Jh2Gf6Ds1Aq3Zr8Ty5Uv0Wx"),
    Fake("slack-bot-token", "slack-token", "bot token xoxb-2620093452-5738291046-Zq8Wx2Rt6Yp4Lm9Kj",
         "5738291046-Zq8Wx2Rt6Yp4Lm9Kj"),
    Fake("google-api-key", "google-key", "maps key AIzaSyB7q2Xr9Lm4Kp8Wz3Nt6Vc1Hj5Gd0FsQeW",
         "AIzaSyB7q2Xr9Lm4Kp8Wz3Nt6Vc1Hj5Gd0FsQeW"),
    Fake("jwt", "jwt", f"session {_JWT} expires", "Qm7xK2pL9vR4tW8zB3nC6dF1hJ5kM0sA"),
    Fake("private-key", "private-key", f"the deploy key:\n{_PEM}\nkeep it", "MIIEowIBAAKCAQEAq7BFUqs3"),
    Fake("bearer-header", "bearer-token", "curl -H 'Authorization: Bearer 9fK2mQ7xLp4vRt8wZb3n'",
         "9fK2mQ7xLp4vRt8wZb3n"),
    Fake("bearer-prose", "bearer-token", "send bearer mF8kQ2xLp9vRt4wZb7nC3d with it",
         "mF8kQ2xLp9vRt4wZb7nC3d"),
    Fake("password-assignment", "password", "login with password=Tr0ub4dor&3x today",
         "Tr0ub4dor&3x"),
    Fake("api-key-json", "password", 'config {"api_key": "k-9f8e7d6c5b4a"} set', "k-9f8e7d6c5b4a"),
    Fake("client-secret", "password", "client_secret: 8Qw2Er4Ty6Ui8Op0As for the app",
         "8Qw2Er4Ty6Ui8Op0As"),
    Fake("url-credentials", "password", "db at postgres://admin:pa55word99@db.internal/app",
         "pa55word99"),
    # leaked before issue 11
    Fake("stripe", "stripe-key", "Stripe live key sk_live_51H8xYzQ4vLp9Tr2Wm7Kc3Nb6 and restricted "
         "rk_live_51H8xYzR5wMq0Us3Xn8Ld4Oc7", "H8xYzQ4vLp9Tr2Wm7Kc3Nb6"),
    Fake("slack-webhook", "slack-webhook",
         "alerts go to https://hooks.slack.com/services/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",
         "x9Yq2WvR7tLp4KzM8nB3cD6f"),
    Fake("sendgrid", "sendgrid-key",
         "mail with 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",
         "qR7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1qR3s"),
    Fake("huggingface", "huggingface-token", "HF token hf_Xq7WmR2tLp9Vz4Kc8Nb3Jd6Fg1Hs5Ae0Yu",
         "Xq7WmR2tLp9Vz4Kc8Nb3Jd6Fg1Hs5Ae0Yu"),
    Fake("google-oauth", "google-oauth-secret", "OAuth client secret GOCSPX-1a2B3c4D5e6F7g8H9i0J1k2L3m",
         "1a2B3c4D5e6F7g8H9i0J1k2L3m"),
    Fake("azure-connection-string", "azure-key",
         "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=Zm9vYmFyYmF6cXV4cXV1eGNv"
         "cmdlZ3JhdWx0Z2FycGx5d2FsZG9maXh5eg==;EndpointSuffix=core.windows.net",
         "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9maXh5eg"),
    Fake("env-password", "password", "run it with export PGPASSWORD=Winter2026xQ first",
         "Winter2026xQ"),
    Fake("url-password-with-at", "password",
         "prod is postgres://app:p@ssw0rd!7@db.example.com:5432/prod now", "ssw0rd!7"),
    Fake("password-in-prose", "password", "my password is hunter2!x, remember it", "hunter2!x"),
    Fake("aws-secret-unlabelled", "aws-key",
         "and the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKE ok",
         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKE"),
    Fake("long-hex-token", "hex-token",
         "the Datadog API key 3f9c7e5b1d8f2a4c6e9b3d7f1a5c8e20 works",
         "3f9c7e5b1d8f2a4c6e9b3d7f1a5c8e20"),
)

# Passwords typed into the chat by mistake (the blind rounds 5-7 planted one each time), with
# an everyday cue or none at all (stop 20).
TYPED_PASSWORDS: tuple[Fake, ...] = (
    Fake("typed-log-in", "password", "Log in: Brackw00d!7 — ignore, wrong window.", "Brackw00d!7"),
    Fake("typed-pw", "password", "pw: Tr0ub4dor&3", "Tr0ub4dor&3"),
    Fake("typed-pass", "password", "pass = Kestrel#Moor8, sorry", "Kestrel#Moor8"),
    Fake("typed-sign-in", "password", "sign-in for the portal: lantern9!fox", "lantern9!fox"),
    Fake("typed-pin", "password", "my PIN is 4417, don't keep it", "4417"),
    Fake("typed-no-cue", "password", "Wrong window. Ignore: Qu1ll!pen", "Qu1ll!pen"),
    Fake("typed-no-cue-first", "password", "Otter!Bank55 oh no, wrong box", "Otter!Bank55"),
    Fake("typed-no-cue-at", "password", "oops Ferr@n2291x was meant for the other tab", "Ferr@n2291x"),
    Fake("typed-zh-gap", "password", "刚才手滑把邮箱密码发出来了：Lin@0623qz，别记", "Lin@0623qz"),
    Fake("typed-zh-glued", "password", "把密码Zhou0711@bj打到搜索框里了", "Zhou0711@bj"),
    Fake("typed-zh-login", "password", "登录：Pian!5309k 打错窗口了", "Pian!5309k"),
    # a word and digits with no symbol, a symbol only at the end, a number sign (issue 13)
    Fake("typed-login-word-digits", "password", "my login is Marmalade1952", "Marmalade1952"),
    Fake("typed-pw-no-separator", "password", "pw Brambleton1987 for the gym", "Brambleton1987"),
    Fake("typed-cue-after", "password", "by accident in the wrong box, Quenby1974, don't keep that, "
         "it's the password for the library account", "Quenby1974"),
    Fake("typed-symbol-at-end", "password", "Summer2031! oops, wrong window", "Summer2031"),
    Fake("typed-cued-symbol-at-end", "password", "my password is Autumn2029!", "Autumn2029"),
    Fake("typed-number-sign", "password", "Kestrel#2024 — sorry, ignore that", "Kestrel#2024"),
    Fake("typed-zh-slip", "password", "密码是Wen@0412kz — 发错窗口了，忽略", "Wen@0412kz"),
    Fake("typed-zh-near", "password", "手滑打错窗口了 Qiaomu2019 别记", "Qiaomu2019"),
    # quality round 10 (blind): a whole message of one token, and a PIN said out loud
    Fake("typed-alone", "password", "Sowa#4481", "Sowa#4481"),
    Fake("typed-card-pin", "password",
         "6093 enter um hang on that was me saying my card pin out loud at the pump ignore that", "6093"),
)

# The formats the audit of issue 13 added: more providers, headers, connection strings, .env
# names and card numbers.
AUDIT_FAKES: tuple[Fake, ...] = (
    Fake("gitlab", "gitlab-token", "my GitLab token glpat-Rk8vT2mXq9LpW4zN7bC3 for CI",
         "Rk8vT2mXq9LpW4zN7bC3"),
    Fake("slack-app-token", "slack-token",
         "app token xapp-1-A05QF2B7K9M-6123456789012-aebb8f010b8e9a5b5ab89c3049787a5d33aa7e52",
         "aebb8f010b8e9a5b5ab89c3049787a5d33aa7e52"),
    Fake("stripe-webhook-secret", "stripe-key", "webhook signing secret whsec_Zq8Wx2Rt6Yp4Lm9Kj3Hg5Fd7Sa1Qe0",
         "Zq8Wx2Rt6Yp4Lm9Kj3Hg5Fd7Sa1Qe0"),
    Fake("google-oauth-token", "google-oauth-token",
         "access token ya29.a0AfB_byC7xQ2kLp9Vt4Wz8Nc3Jh6Gf1Ds5Aq0Zr expires", "a0AfB_byC7xQ2kLp9Vt4W"),
    Fake("npm", "npm-token", "//registry.npmjs.org/:_authToken=npm_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H",
         "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"),
    Fake("pypi", "pypi-token",
         "twine password pypi-AgEIcHlwaS5vcmcXbiufMdI8X2Y4rUmer-BH3M1XS0DRdJuPnBIKpi99lSi0tcL21pffWQJEeNa",
         "XbiufMdI8X2Y4rUmer-BH3M1XS0DRdJuPnBIKpi99lSi0tcL21pffWQJEeNa"),
    Fake("telegram-bot", "telegram-token", "bot token 5738291046:AAjnez0LHtfROUrWW6XnI3EM3HMRb1OcWrh",
         "AAjnez0LHtfROUrWW6XnI3EM3HMRb1OcWrh"),
    Fake("pgp-private-key", "private-key",
         "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0Ap7kBCADh3z9Qm2\n=Xk4p\n"
         "-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF0Ap7kBCADh3z9Qm2"),
    Fake("service-account-json", "private-key",
         '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkq'
         'hkiG9w0BAQEFAASC\\nBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n", "client_email": "x"}',
         "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    Fake("basic-auth-header", "bearer-token", "curl -H 'Authorization: Basic YW5hOkNvcnJlY3RIb3JzZTk='",
         "YW5hOkNvcnJlY3RIb3JzZTk"),
    Fake("url-empty-user", "password", "REDIS_URL=redis://:Gx7pQ2vLw9@cache.internal:6379/0",
         "Gx7pQ2vLw9"),
    Fake("ado-connection-string", "password", "Server=db;Database=app;User Id=sa;Password=Vq8!rT2mLx;",
         "Vq8!rT2mLx"),
    Fake("env-pass", "password", "SMTP_PASS=Mq7xL2pW9v", "Mq7xL2pW9v"),
    Fake("env-pwd", "password", "export MYSQL_PWD=Rk3vT8mQx2", "Rk3vT8mQx2"),
    Fake("env-bare-token", "password", "TOKEN=Hq7Rt2Lp9Vx4 ./run.sh", "Hq7Rt2Lp9Vx4"),
    Fake("card-visa", "card-number", "my card is 4111 1111 1111 1111 exp 08/29", "1111 1111 1111"),
    Fake("card-amex-dashes", "card-number", "Amex 3782-822463-10005, keep it safe", "822463-10005"),
    Fake("card-mastercard-glued", "card-number", "卡号5555555555554444，别记", "5555555555554444"),
)

# More fakes for the unit table (same kinds, other shapes).
MORE_FAKES: tuple[Fake, ...] = (
    Fake("stripe-restricted", "stripe-key", "rk_live_51H8xYzR5wMq0Us3Xn8Ld4Oc7", "R5wMq0Us3Xn8Ld4Oc7"),
    Fake("stripe-test", "stripe-key", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    Fake("env-token", "password", "GITHUB_TOKEN=Zq8Wx2Rt6Yp4Lm9Kj3Hg ./deploy.sh", "Zq8Wx2Rt6Yp4Lm9Kj3Hg"),
    Fake("env-secret", "password", "MY_APP_SECRET='s3cr3t-Value-77'", "s3cr3t-Value-77"),
    Fake("env-db-password", "password", "DB_PASSWORD=\"correct horse 9\"", "correct horse 9"),
    Fake("prose-password-for", "password", "The password for the router is Xk9#mQ2p.", "Xk9#mQ2p"),
    Fake("prose-password-chinese", "password", "我的密码是hunter2!x，别忘了", "hunter2!x"),
    Fake("azure-sas", "azure-key",
         "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;"
         "SharedAccessKey=Q2xvdWRLZXlGb3JUZXN0aW5nT25seTEyMzQ1Njc4OTA=",
         "Q2xvdWRLZXlGb3JUZXN0aW5nT25seTEyMzQ1Njc4OTA"),
    Fake("hex-64", "hex-token", "signing secret 9b2e7f4a1c8d3e6f0a5b9c2d7e4f1a8b3c6d9e0f2a5b8c1d4e7f0a3b6c9d2e5f",
         "9b2e7f4a1c8d3e6f0a5b9c2d7e4f1a8b3c6d9e0f2a5b8c1d4e7f0a3b6c9d2e5f"),
    Fake("random-token", "random-token", "the invite code is x9Yq2WvR7tLp4KzM8nB3cD6fAb1", "x9Yq2WvR7tLp4KzM8nB3cD6fAb1"),
    Fake("aws-secret-no-slash", "random-token", "secret Hq7Rt2Lp9Vx4Kz8Wm3Nb6Cd1Fg5Js0AeYu2Io3Pq",
         "Hq7Rt2Lp9Vx4Kz8Wm3Nb6Cd1Fg5Js0AeYu2Io3Pq"),
    *TYPED_PASSWORDS,
    *AUDIT_FAKES,
)

# Must pass through redaction unchanged.
FALSE_POSITIVES: tuple[str, ...] = (
    "Contract KX-7731 is due on 2025-03-14; budget 40,000 EUR.",
    "Restore with /dream-restore 0123456789abcdef0123456789abcdef01234567 if needed.",
    "commit 3f9175f fixed it; see e5c54c8d and 1a0240f.",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "Call +33 6 12 34 56 78 or 0612345678 before 18:30.",
    "Order #1234567890123456789012345678901234567890 is a number, not a key.",
    "See https://github.com/anthropics/claude-code/blob/main/README.md and docs/api/v2/index.html",
    "Email ana.lopez@example.com about the 2026-Q3 roadmap.",
    "Use getUserAccountById2Fast and HTTPServer2ConnectionPool in the Python3_11_BuildHelper.",
    "risk-assessment-framework-2025-for-the-quarter",
    "The password is correct and the token budget is 6000 tokens.",
    "She reset her password yesterday; my password is long and private.",
    "max_tokens=4096, MAX_TOKENS=4096, MAX_TOKEN=4096 and TOKEN_LIMIT=5000 are settings.",
    "cd back with OLDPWD=/home/ana/projects",
    "export PATH=/usr/local/bin:$PATH and HOME=/home/ana",
    "iPhone15ProMaxCase2024 and en_US-UTF8-Locale2026Data are product names.",
    "The file /usr/local/lib/python3.11/site-packages/dulwich/objects.py is long.",
    "Dream-Cursor: 42 and Batch: 30-42 are trailers.",
    "- [durable] User prefers metric units <!-- permanent -->",
    "用户喜欢喝茶，不喝咖啡。密码学是她的专业。",
    "Always answer in metric units.",
    # credential words before an ordinary value, and tokens that only look like a password
    "Log in: tomorrow. PIN: 4 digits. code: see above. Sign in: 10am. The password is wrong!",
    "login: ana.lopez@example.com, boarding pass: BA2490, pass: 3 days, log in is broken.",
    "登录时间：10:30，登录名是ana2024。",
    "KX-7731, LR22 BNO at 08:15 for 99.95 or £3,140 with en_US-UTF8 and Mon-Fri.",
    "Issue#42 at Standup@10am; Ana.Lopez2@Example.com; NANOMEM_MODEL=qwen2.5:7b; Python+UL4.",
    "See https://Example.com/a?b=C1d!e and C:/Users/Ana/Docs2/x!y.txt and f(Xy2)=Zw!3.",
    # near a credential word or a slip, still no password (issue 13)
    "My locker code is 4471 and my flight is BA2490.",
    "Oops, wrong window: flight BA2490 lands at 10:30, gate B12.",
    "Oops, wrong tab, back in 30mins; room 12B; iOS17 on the iPad.",
    "My password manager is 1Password; Issue#42 came up at Standup@10am when I changed my password.",
    "authstr = b64encode(password) and the password is wrong!",
    # numbers that are no card: a failed check digit, phones, an ISBN, an IBAN, a long seed
    "Order 4111 1111 1111 1112 shipped; call 0612345678 or +44 7911 123456.",
    "ISBN 978-0-306-40615-7, IBAN DE89 3704 0044 0532 0130 00, seed 4220315081820346526.",
    "TEST_PASS=true and CACHE_BYPASS=1 and OLDPWD=/home/ana are settings.",
    "Issue#42\nRoom#12B\nStandup@10am\niPhone15Pro\nMarmalade1952",
    "Drop the pin on the map at 4471 Main St; my locker code is 4471; a safety pin, size 2024.",
)
