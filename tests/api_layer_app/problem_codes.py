from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode(
        "teapot_refused",
        418,
        "This server is a teapot: it refuses to brew coffee.",
        page_text="Only tea here, %(name)s.",
    )
]
