FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_ENV=production
WORKDIR /app
COPY pyproject.toml README.md ./
COPY manhattan_site manhattan_site
COPY games games
COPY accounts accounts
COPY notifications notifications
COPY templates templates
COPY locale locale
COPY manage.py ./
RUN pip install --no-cache-dir .
RUN useradd --create-home app && mkdir -p /app/var && chown app /app/var
USER app
EXPOSE 8000
