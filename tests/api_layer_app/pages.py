from django.http import HttpRequest, HttpResponse

from manhattan_site.api.codes import ProblemError, page_text_for


def teapot_page(request: HttpRequest) -> HttpResponse:
    """A web page that meets the app's refusal and words it for a person."""
    return HttpResponse(page_text_for(ProblemError("teapot_refused", "No coffee here.", name="Alice")), status=418)
