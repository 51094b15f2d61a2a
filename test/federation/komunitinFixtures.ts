/**
 * The Komunitin fixtures, copied verbatim from ../shared/federation/fixtures/komunitin/ (provenance in its
 * index.md) so the tests carry them. Request bodies (01–03, 06, 12–14) are replayed against our
 * `/api/v1/federation/{CODE}` routes; responses (04, 05, 07–11) are what our answers are compared with.
 */

/** 01-transfer-create-committed.request.json */
export const K01_TRANSFER_CREATE_COMMITTED_REQUEST = {
  "data": {
    "attributes": { "amount": 100, "meta": { "description": "User transfer" }, "state": "committed" },
    "relationships": {
      "payer": { "data": { "type": "accounts", "id": "86be4ba3-8303-4609-9105-2ac305f65d64" } },
      "payee": { "data": { "type": "accounts", "id": "534d5a24-a88f-4f23-8ce5-da1330354844" } }
    }
  }
} as const

/** 02-transfer-create-new.request.json */
export const K02_TRANSFER_CREATE_NEW_REQUEST = {
  "data": {
    "attributes": { "amount": 30, "meta": { "description": "Two-step transfer" }, "state": "new" },
    "relationships": {
      "payer": { "data": { "type": "accounts", "id": "86be4ba3-8303-4609-9105-2ac305f65d64" } },
      "payee": { "data": { "type": "accounts", "id": "534d5a24-a88f-4f23-8ce5-da1330354844" } }
    }
  }
} as const

/** 03-transfer-commit.request.json */
export const K03_TRANSFER_COMMIT_REQUEST = { "data": { "attributes": { "state": "committed" } } } as const

/** 04-transfer-create.response.201.openapi.json */
export const K04_TRANSFER_CREATE_RESPONSE_201 = {
  "data": {
    "type": "transfers",
    "id": "1f05dc58-0d3e-4c30-8ebb-4a97452e3eb0",
    "attributes": {
      "state": "committed",
      "amount": 100,
      "meta": "Transfer preauthorized with tag",
      "created": "2024-10-17T10:30:04.887Z",
      "updated": "2024-10-17T10:30:04.887Z",
      "hash": "97d1fdd294f571a45d04376984427ff6add15c18c471ff8780ab91b8b11a7374"
    },
    "links": { "self": "http://localhost:2025/TEST/transfers/1f05dc58-0d3e-4c30-8ebb-4a97452e3eb0" },
    "relationships": {
      "payer": { "data": { "type": "accounts", "id": "86be4ba3-8303-4609-9105-2ac305f65d64" } },
      "payee": { "data": { "type": "accounts", "id": "534d5a24-a88f-4f23-8ce5-da1330354844" } },
      "currency": { "data": { "type": "currencies", "id": "fe788e7b-28a8-4e31-84e0-9c41c27c1a4e" } }
    }
  }
} as const

/** 05-transfer-commit.response.200.openapi.json */
export const K05_TRANSFER_COMMIT_RESPONSE_200 = {
  "data": {
    "type": "transfers",
    "id": "baaaedff-bef8-460f-bb73-b041e0bfbd35",
    "attributes": {
      "state": "committed",
      "amount": 30,
      "meta": "Two-step transfer",
      "created": "2024-10-17T10:30:53.386Z",
      "updated": "2024-10-17T10:30:53.665Z",
      "hash": "97afbdc79ff74847b7b0f4343d949148f37e892315485adb9fbbc3eb6d876446"
    },
    "links": { "self": "http://localhost:2025/TEST/transfers/baaaedff-bef8-460f-bb73-b041e0bfbd35" },
    "relationships": {
      "payer": { "data": { "type": "accounts", "id": "7dd39861-844e-4992-b4ee-d8bff4e00c50" } },
      "payee": { "data": { "type": "accounts", "id": "776edbba-68f0-46ad-bc23-4a739cbe30b8" } },
      "currency": { "data": { "type": "currencies", "id": "5e6f4711-6dee-479f-b168-e91427c19724" } }
    }
  }
} as const

/** 06-transfer-create-external-payee.request.json */
export const K06_TRANSFER_CREATE_EXTERNAL_PAYEE_REQUEST = {
  "data": {
    "attributes": { "amount": 100, "meta": { "description": "TEST => EXTR" }, "state": "committed" },
    "relationships": {
      "payer": { "data": { "type": "accounts", "id": "7dd39861-844e-4992-b4ee-d8bff4e00c50" } },
      "payee": {
        "data": {
          "type": "accounts",
          "id": "e4b1f1a2-0000-4000-8000-000000000001",
          "meta": {
            "external": true,
            "href": "http://localhost:2025/EXTR/accounts/e4b1f1a2-0000-4000-8000-000000000001"
          }
        }
      }
    }
  }
} as const

/** 07-account.response.200.openapi.json */
export const K07_ACCOUNT_RESPONSE_200 = {
  "data": {
    "type": "accounts",
    "id": "86be4ba3-8303-4609-9105-2ac305f65d64",
    "attributes": {
      "code": "TEST0001",
      "balance": -100,
      "creditLimit": 1000,
      "key": "GAC43NE5IG2ACKONXRCTFXO4H2VWJ3WIRUOGDJGFZ7QSPZT65SV7VGAD",
      "created": "2024-10-17T10:29:59.118Z",
      "updated": "2024-10-17T10:30:07.130Z"
    },
    "links": { "self": "http://localhost:2025/TEST/accounts/86be4ba3-8303-4609-9105-2ac305f65d64" },
    "relationships": {
      "currency": { "data": { "type": "currencies", "id": "fe788e7b-28a8-4e31-84e0-9c41c27c1a4e" } },
      "users": { "data": [{ "type": "users", "id": "1", "meta": { "external": true, "href": null } }] },
      "settings": { "data": { "type": "account-settings" } }
    }
  }
} as const

/** 08-currency.response.200.openapi.json */
export const K08_CURRENCY_RESPONSE_200 = {
  "data": {
    "type": "currencies",
    "id": "d10e351f-43a8-415b-8240-230b552b8804",
    "attributes": {
      "code": "TES1",
      "status": "active",
      "name": "Testy",
      "namePlural": "Testies",
      "symbol": "T$",
      "decimals": 2,
      "scale": 4,
      "rate": { "n": 1, "d": 10 },
      "keys": {
        "issuer": "GDKSSHKCKOHZOACYN4OQVEU7LA66W7FAKZ24KWDXBAAFWDFOJSEXI33M",
        "credit": "GAHUNNKHZELQYZHKBRIOAX7VKX6ZLAKHKCQNODT2R7QAAJRGM4XTPDUK",
        "admin": "GA636P46N6NZMPJJB2JCOTMCC6F7NABS4P6NUJDVD3TG52DNPC75KBP2",
        "externalTrader": "GDMV4Q3JR5S2WGJC4KIMYQAMIU6WEUXMGYEPHAPQ24SOFZ3LFARTWVBP",
        "externalIssuer": "GC2NFJQ7TF7XA34SEA22DT3SUINZNYN22SYW6JVTYZD44JW5ULAY5CEH"
      },
      "settings": {
        "defaultAllowPayments": true,
        "enableExternalPayments": true,
        "defaultAllowTagPayments": false,
        "defaultInitialCreditLimit": 1000,
        "externalTraderCreditLimit": 1000,
        "defaultAcceptPaymentsAfter": 1296000,
        "defaultAllowPaymentRequests": true,
        "defaultAllowExternalPayments": true,
        "enableExternalPaymentRequests": false,
        "defaultAcceptPaymentsWhitelist": [null],
        "defaultAllowTagPaymentRequests": false,
        "defaultAcceptPaymentsAutomatically": false,
        "defaultAllowExternalPaymentRequests": false,
        "defaultAcceptExternalPaymentsAutomatically": false
      },
      "created": "2024-10-17T10:29:39.329Z",
      "updated": "2024-10-17T10:29:41.231Z"
    },
    "links": { "self": "http://localhost:2025/TES1/currency" },
    "relationships": {
      "admins": { "data": [{ "type": "users", "id": "1", "meta": { "external": true, "href": null } }] }
    }
  }
} as const

/** 09-transfers-list.response.200.openapi.json */
export const K09_TRANSFERS_LIST_RESPONSE_200 = {
  "links": {
    "first": "http://localhost:2025/TEST/transfers?page%5Bsize%5D=3&sort=-created&page%5Bafter%5D=0",
    "last": null,
    "prev": null,
    "next": "http://localhost:2025/TEST/transfers?page%5Bsize%5D=3&sort=-created&page%5Bafter%5D=3"
  },
  "data": [
    {
      "type": "transfers",
      "id": "e1e094ae-f16f-48be-9f88-ad9f12a93fce",
      "attributes": {
        "state": "new",
        "amount": 100,
        "meta": "Get transfer",
        "created": "2024-10-17T10:31:01.143Z",
        "updated": "2024-10-17T10:31:01.143Z"
      },
      "links": { "self": "http://localhost:2025/TEST/transfers/e1e094ae-f16f-48be-9f88-ad9f12a93fce" },
      "relationships": {
        "payer": { "data": { "type": "accounts", "id": "7dd39861-844e-4992-b4ee-d8bff4e00c50" } },
        "payee": { "data": { "type": "accounts", "id": "776edbba-68f0-46ad-bc23-4a739cbe30b8" } },
        "currency": { "data": { "type": "currencies", "id": "5e6f4711-6dee-479f-b168-e91427c19724" } }
      }
    }
  ]
} as const

/** 10-error-400-field-validation.json */
export const K10_ERROR_400_FIELD_VALIDATION = {
  "errors": [
    {
      "status": "400",
      "code": "FieldValidationError",
      "title": "Field validation Error",
      "detail": "Field data.attributes.amount is invalid in request body."
    }
  ]
} as const

/** 11-error-403-forbidden.json */
export const K11_ERROR_403_FORBIDDEN = {
  "errors": [
    {
      "status": "403",
      "code": "Forbidden",
      "title": "Forbidden",
      "detail": "User is not allowed to change payer"
    }
  ]
} as const

/** 12-currency-create.request.json */
export const K12_CURRENCY_CREATE_REQUEST = {
  "data": {
    "type": "currencies",
    "attributes": {
      "code": "TEST",
      "name": "Testy",
      "namePlural": "Testies",
      "symbol": "T$",
      "decimals": 2,
      "scale": 4,
      "rate": { "n": 1, "d": 10 }
    },
    "relationships": { "settings": { "data": { "type": "currency-settings", "id": "anything-works" } } }
  },
  "included": [
    {
      "type": "currency-settings",
      "id": "anything-works",
      "attributes": { "defaultInitialCreditLimit": 1000 }
    }
  ]
} as const

/** 13-trustline-create.request.json */
export const K13_TRUSTLINE_CREATE_REQUEST = {
  "data": {
    "attributes": { "limit": 1000 },
    "relationships": {
      "trusted": {
        "data": {
          "type": "currencies",
          "id": "fe788e7b-28a8-4e31-84e0-9c41c27c1a4e",
          "meta": { "external": true, "href": "http://localhost:2025/TEST/currency" }
        }
      }
    }
  }
} as const

/** 14-external-transfer-update.server-to-server.request.json */
export const K14_EXTERNAL_TRANSFER_UPDATE_SERVER_TO_SERVER_REQUEST = {
  "data": {
    "id": "1f05dc58-0d3e-4c30-8ebb-4a97452e3eb0",
    "type": "transfers",
    "attributes": {
      "state": "committed",
      "hash": "97d1fdd294f571a45d04376984427ff6add15c18c471ff8780ab91b8b11a7374"
    }
  }
} as const
