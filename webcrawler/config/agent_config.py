"""What every agent is told: the settings an agent needs, and the data directory's credentials.

Here, not a method of Settings, because the credentials are read from the data directory at the
moment a pool starts (config/credentials.py: never held by a settings object), and the
settings tables (webcrawler/settings/) are plain dataclasses that import nothing of config/.
"""

from __future__ import annotations

from webcrawler.config.credentials import read_credentials
from webcrawler.protocol.messages import AgentConfig
from webcrawler.settings import Settings


def agent_config(settings: Settings, credentials: bool = True) -> AgentConfig:
    """The AgentConfig of every agent of a crawl with `settings`; with the data directory's
    [[credentials]] only when `credentials` (a toolkit or workbench crawl: only when its
    operator says so, `Crawler.use_credentials`)."""
    agent = settings.user_agent or f"{settings.robots_token}/0.1 (personal search engine; webcrawler)"
    return AgentConfig(
        user_agent=agent,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        total_timeout=settings.total_timeout,
        deadline=settings.deadline(),
        max_bytes=settings.max_bytes,
        max_url_length=settings.max_url_length,
        deny_private=settings.deny_private,
        allowed_hosts=settings.scope_hosts,
        allowed_patterns=settings.include,
        exclude=settings.exclude,
        ca_bundle=settings.ca_bundle,
        ca_bundle_only=settings.ca_bundle_only,
        client_cert=settings.client_cert,
        client_key=settings.client_key,
        insecure_hosts=tuple(h.lower() for h in settings.insecure_skip_tls_verify),
        credentials=read_credentials(settings.data_dir) if credentials else (),
        strip_params=settings.strip_params,
        types=settings.types,
        main_content=settings.main_content,
        render=settings.render,
        render_timeout=settings.render_timeout,
        memory_mb=settings.agent_memory_mb,
    )
